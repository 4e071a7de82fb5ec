/**
 * From a node's `executable` to the factory that makes its instance: the built-ins' implementations
 * (factories.ts), external programs in the allowed directories (streams/runtime/external/process-node.ts),
 * and, for tests and embedders, executables added by extra modules.
 */
import path from 'node:path';
import { loadBuiltinFactory } from './factories.js';
import { resolveExecutable } from './registry.js';
import { isTypeScriptFile, transpileTypeScriptNode } from './typescript-node.js';
import type { NodeDef } from '../../core/stream-model.js';
import type { NodeFactory } from '../../core/node.js';

export interface FactoryResolverOptions {
  /** The service's data directory: where TypeScript nodes are transpiled to (typescript-node.ts). */
  dataDir?: string;
  executablesDirs: readonly string[];
  /**
   * Module URLs (or paths) each exporting `factories: Record<string, NodeFactory>`: an executable
   * named exactly like one of its keys uses that factory. Loaded in the stream's worker.
   */
  extraModules?: readonly string[];
}

async function loadExtraFactories(modules: readonly string[]): Promise<Map<string, NodeFactory>> {
  const map = new Map<string, NodeFactory>();
  for (const specifier of modules) {
    const loaded = (await import(specifier)) as { factories?: Record<string, NodeFactory> };
    for (const [name, factory] of Object.entries(loaded.factories ?? {})) map.set(name, factory);
  }
  return map;
}

/** Node itself, by the names the registry lets run a script (interpreters.ts), or the service's own. */
function isNode(program: string): boolean {
  return program === process.execPath || ['node', 'nodejs'].includes(path.basename(program));
}

export function createFactoryResolver(
  options: FactoryResolverOptions,
): (node: NodeDef) => Promise<NodeFactory> {
  let extras: Promise<Map<string, NodeFactory>> | undefined;
  return async (node) => {
    if (options.extraModules !== undefined && options.extraModules.length > 0) {
      extras ??= loadExtraFactories(options.extraModules);
      const extra = (await extras).get(node.executable.trim());
      if (extra !== undefined) return extra;
    }
    const resolution = resolveExecutable(node.executable, options.executablesDirs);
    if (resolution.kind === 'builtin') {
      const factory = await loadBuiltinFactory(resolution.descriptor.name);
      if (factory === undefined)
        throw new Error(`the built-in ${resolution.descriptor.name} has no implementation`);
      return factory;
    }
    let external: typeof import('../runtime/external/process-node.js');
    try {
      external = await import('../runtime/external/process-node.js');
    } catch (error) {
      throw new Error(`external executables cannot run in this build: ${(error as Error).message}`);
    }
    const { argv, file } = resolution;
    const scriptIndex = argv.indexOf(file);
    if (scriptIndex > 0 && isTypeScriptFile(file) && isNode(argv[0] ?? '') && options.dataDir !== undefined) {
      // Node 20 runs no .ts file: node runs the script's transpiled twin, cached in the data dir.
      const compiled = await transpileTypeScriptNode(file, options.dataDir);
      const run = [
        ...argv.slice(0, scriptIndex),
        '--enable-source-maps',
        compiled,
        ...argv.slice(scriptIndex + 1),
      ];
      const label = argv.join(' ');
      return (context) => external.createExternalNode(context, run, { file, label });
    }
    return (context) => external.createExternalNode(context, argv, { file });
  };
}
