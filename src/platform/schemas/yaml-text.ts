/**
 * YAML text to a value, with the one error the API, the settings file and `headsetd validate` give:
 * the parser's refusal (core/yaml.ts) as `invalid_request`, its line, column and pointer in details.
 */
import { parseYaml } from '../../core/yaml.js';
import { YamlDocumentError } from '../../core/yaml-error.js';
import { HeadsetdError } from '../../core/errors.js';

export function parseYamlText(text: string): unknown {
  try {
    return parseYaml(text);
  } catch (error) {
    if (!(error instanceof YamlDocumentError)) throw error;
    throw new HeadsetdError('invalid_request', error.message, { ...error.place });
  }
}
