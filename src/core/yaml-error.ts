/**
 * Why a YAML text was refused, with where. The parser knows nothing of HTTP: the layer that reads
 * a body or a file (platform/schemas/yaml-text.ts) turns this into the catalog's `invalid_request`.
 */
export type YamlRefusal = 'malformed' | 'foreign_tag' | 'aliases' | 'too_deep';

export interface YamlErrorPlace {
  /** 1-based line and column of the culprit, when the parser knows them. */
  line?: number;
  column?: number;
  /** JSON pointer to the value that is too deep (`too_deep` only). */
  path?: string;
}

// eslint-disable-next-line no-restricted-syntax -- core/ lies below the catalogue; platform/schemas/yaml-text.ts answers it.
export class YamlDocumentError extends Error {
  constructor(
    readonly refusal: YamlRefusal,
    /** A sentence for a person, position included. */
    message: string,
    readonly place: YamlErrorPlace = {},
  ) {
    super(message);
    this.name = 'YamlDocumentError';
  }
}
