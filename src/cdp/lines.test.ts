import { describe, expect, test } from "bun:test";
import { LineReader, LineTooLongError, readLines } from "./lines.ts";

const encoder = new TextEncoder();

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

function split(bytes: Uint8Array, sizes: number[]): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let offset = 0;
  let i = 0;
  while (offset < bytes.length) {
    const size = sizes[i++ % sizes.length] ?? 1;
    chunks.push(bytes.subarray(offset, offset + size));
    offset += size;
  }
  return chunks;
}

describe("readLines", () => {
  test("reassembles a 5 MB line split over many chunks, plus a final unterminated line", async () => {
    // A multi-byte character every so often so chunk edges land inside UTF-8 sequences.
    const big = JSON.stringify({ id: 1, result: { data: "xé€😀".repeat((5 * 1024 * 1024) / 10) } });
    expect(encoder.encode(big).length).toBeGreaterThan(5 * 1024 * 1024);
    const bytes = encoder.encode(`{"first":true}\n${big}\n\n{"last":true}`);
    const lines: string[] = [];
    const started = performance.now();
    await readLines(streamOf(split(bytes, [1, 7, 4093, 65_536, 3])), (line) => lines.push(line));
    const elapsed = performance.now() - started;
    expect(lines.length).toBe(3);
    expect(lines[0]).toBe('{"first":true}');
    expect(lines[1]?.length).toBe(big.length);
    expect(lines[1] === big).toBe(true);
    expect(lines[2]).toBe('{"last":true}');
    // Linear work: a quadratic join of ~300 chunks of a 5 MB line would take far longer.
    expect(elapsed).toBeLessThan(2000);
  });

  test("a stream that is one chunk per line and several lines per chunk both work", async () => {
    const lines: string[] = [];
    await readLines(streamOf([encoder.encode("a\nb\nc"), encoder.encode("d\n"), encoder.encode("e\n")]), (l) =>
      lines.push(l),
    );
    expect(lines).toEqual(["a", "b", "cd", "e"]);
  });

  test("rejects when the handler throws and when the stream errors", async () => {
    const failing = readLines(streamOf([encoder.encode("x\n")]), () => {
      throw new Error("handler broke");
    });
    await expect(failing).rejects.toThrow("handler broke");
    let pulls = 0;
    const broken = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulls++ === 0) controller.enqueue(encoder.encode("ok\npart"));
        else controller.error(new Error("pipe broke"));
      },
    });
    const seen: string[] = [];
    await expect(readLines(broken, (l) => seen.push(l))).rejects.toThrow("pipe broke");
    expect(seen).toEqual(["ok"]);
  });

  test("abort stops reading and resolves", async () => {
    const abort = new AbortController();
    let pulls = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls++;
        controller.enqueue(encoder.encode(`line ${pulls}\n`));
      },
    });
    const lines: string[] = [];
    await readLines(
      endless,
      (line) => {
        lines.push(line);
        if (lines.length === 3) abort.abort();
      },
      { signal: abort.signal },
    );
    expect(lines).toEqual(["line 1", "line 2", "line 3"]);
  });
});

describe("LineReader", () => {
  test("push/end with maxLineBytes", () => {
    const lines: string[] = [];
    const reader = new LineReader((line) => lines.push(line), { maxLineBytes: 8 });
    reader.push(encoder.encode("1234"));
    expect(reader.pendingBytes).toBe(4);
    reader.push(encoder.encode("5678\nab"));
    expect(lines).toEqual(["12345678"]);
    expect(() => reader.push(encoder.encode("cdefghij"))).toThrow(LineTooLongError);
    expect(reader.pendingBytes).toBe(0);
    reader.push(encoder.encode("\ntail"));
    reader.end();
    expect(lines).toEqual(["12345678", "tail"]);
  });

  test("keeps its own copy of partial chunks (sources reuse buffers)", () => {
    const lines: string[] = [];
    const reader = new LineReader((line) => lines.push(line));
    const buffer = encoder.encode("abc");
    reader.push(buffer);
    buffer.set(encoder.encode("xyz"));
    reader.push(encoder.encode("\n"));
    expect(lines).toEqual(["abc"]);
  });
});
