/**
 * An external node starts with a minimal environment: none of the service's own variables
 * (secrets such as a token given in the environment, loaders such as PYTHONSTARTUP or PERL5OPT that
 * would run code in the child) reach it, only PATH, HOME, TMPDIR, TZ and headsetd's own.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { childEnvironment } from './child-env.js';

const SET = ['HEADSETD_TOKEN', 'AWS_SECRET_ACCESS_KEY', 'PYTHONSTARTUP', 'PERL5OPT', 'RUBYOPT', 'LD_PRELOAD'];

// The variables as they were, put back after each test: the next test file may run in this process.
const BEFORE = Object.fromEntries(SET.map((name) => [name, process.env[name]]));

afterEach(() => {
  for (const name of SET) {
    const value = BEFORE[name];
    if (value === undefined) Reflect.deleteProperty(process.env, name);
    else process.env[name] = value;
  }
});

describe('the environment of an external node', () => {
  it("carries none of the service's variables besides PATH, HOME, TMPDIR and TZ", () => {
    for (const name of SET) process.env[name] = 'from-the-service';
    const env = childEnvironment({ streamId: 's', nodeId: 'n', encoding: 'ndjson' });
    for (const name of SET) expect(env[name], name).toBeUndefined();
    expect(Object.values(env)).not.toContain('from-the-service');
    expect(env.HEADSETD_NODE_ID).toBe('n');
    const allowed = /^(PATH|HOME|TMPDIR|TZ|LANG|NODE_OPTIONS|HEADSETD_[A-Z_]+|PYTHON[A-Z]+)$/;
    for (const name of Object.keys(env)) expect(name).toMatch(allowed);
  });
});
