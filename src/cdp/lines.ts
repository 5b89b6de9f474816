/**
 * Newline-delimited framing: an unfinished line's chunks are joined once at the newline (no quadratic build-up) and
 * decoded whole (split UTF-8 stays intact).
 */

const NEWLINE = 0x0a;

export interface LineReaderOptions {
  /** Refuse lines longer than this many bytes (guards memory against a runaway peer). */
  maxLineBytes?: number;
}

export class LineTooLongError extends Error {
  override name = "LineTooLongError";
  readonly limit: number;

  constructor(limit: number) {
    super(`line exceeds ${limit} bytes`);
    this.limit = limit;
  }
}

/** Push-based splitter, for sources that hand out chunks (Bun.listen `data` callbacks). */
export class LineReader {
  readonly #onLine: (line: string) => void;
  readonly #maxLineBytes: number;
  readonly #decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  #parts: Uint8Array[] = [];
  #partBytes = 0;

  constructor(onLine: (line: string) => void, options: LineReaderOptions = {}) {
    this.#onLine = onLine;
    this.#maxLineBytes = options.maxLineBytes ?? Number.POSITIVE_INFINITY;
  }

  get pendingBytes(): number {
    return this.#partBytes;
  }

  /** Feeds a chunk; calls onLine for every line it completes. Throws LineTooLongError. */
  push(chunk: Uint8Array): void {
    let start = 0;
    let newline = chunk.indexOf(NEWLINE, start);
    while (newline !== -1) {
      this.#emit(chunk.subarray(start, newline));
      start = newline + 1;
      newline = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      this.#checkLimit(this.#partBytes + rest.length);
      // Copy: the source may reuse its buffer for the next read.
      this.#parts.push(rest.slice());
      this.#partBytes += rest.length;
    }
  }

  end(): void {
    if (this.#partBytes > 0) this.#emit(new Uint8Array(0));
  }

  #emit(tail: Uint8Array): void {
    let bytes = tail;
    if (this.#parts.length > 0) {
      const total = this.#partBytes + tail.length;
      this.#checkLimit(total);
      bytes = new Uint8Array(total);
      let offset = 0;
      for (const part of this.#parts) {
        bytes.set(part, offset);
        offset += part.length;
      }
      bytes.set(tail, offset);
      this.#parts = [];
      this.#partBytes = 0;
    } else {
      this.#checkLimit(tail.length);
    }
    if (bytes.length > 0) this.#onLine(this.#decoder.decode(bytes));
  }

  #checkLimit(bytes: number): void {
    if (bytes <= this.#maxLineBytes) return;
    this.#parts = [];
    this.#partBytes = 0;
    throw new LineTooLongError(this.#maxLineBytes);
  }
}

export interface ReadLinesOptions extends LineReaderOptions {
  /** Stops reading (cancels the stream) when aborted; the promise then resolves. */
  signal?: AbortSignal;
}

/**
 * Reads `stream` to its end, calling `onLine` per line; rejects on stream error, a too-long line, or `onLine` throwing.
 */
export async function readLines(
  stream: ReadableStream<Uint8Array>,
  onLine: (line: string) => void,
  options: ReadLinesOptions = {},
): Promise<void> {
  const lines = new LineReader(onLine, options);
  const reader = stream.getReader();
  const { signal } = options;
  const cancel = (): void => {
    reader.cancel().catch(() => undefined);
  };
  if (signal?.aborted === true) cancel();
  signal?.addEventListener("abort", cancel, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (signal?.aborted === true) return;
      lines.push(value);
    }
    if (signal?.aborted !== true) lines.end();
  } catch (error) {
    if (signal?.aborted === true) return;
    // The stream may still hold data we will never read; release it.
    cancel();
    throw error;
  } finally {
    signal?.removeEventListener("abort", cancel);
    reader.releaseLock();
  }
}
