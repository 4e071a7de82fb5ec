/**
 * A file or a writer's input that the formats cannot handle: an unreadable EDF/BDF/CSV header, a
 * signal EDF cannot hold, a torn file beyond repair. formats/ knows nothing of the service: the
 * layer that reads or writes a file (the replay device, the recorder, the recordings listing)
 * answers it as the catalog's `validation_failed` with the same message and details.
 */
// eslint-disable-next-line no-restricted-syntax -- formats/ lies below the catalogue; see above.
export class FormatError extends Error {
  constructor(
    /** A sentence for a person, naming the file or the field where it helps. */
    message: string,
    /** The offending field or position, when there is one (`{ field: 'sampleRate' }`). */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'FormatError';
  }
}
