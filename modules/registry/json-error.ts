// Where JSON text goes wrong, the same under Node and Bun. JSON.parse's messages
// differ by runtime and Bun's carry no position, so a registry error could not name
// its line and column; this scanner finds the first offending character.

export interface JsonErrorSite {
  offset: number;
  message: string;
}

class Scanner {
  i = 0;
  constructor(private readonly text: string) {}

  fail(message: string): never {
    throw { offset: this.i, message } satisfies JsonErrorSite;
  }

  ws(): void {
    while (this.i < this.text.length && " \t\n\r".includes(this.text[this.i] as string)) this.i += 1;
  }

  peek(): string | undefined {
    return this.text[this.i];
  }

  expect(char: string, context: string): void {
    this.ws();
    if (this.peek() === undefined) this.fail(`unexpected end of input, expected '${char}' ${context}`);
    if (this.peek() !== char) this.fail(`expected '${char}' ${context}, found '${this.peek()}'`);
    this.i += 1;
  }

  value(): void {
    this.ws();
    const c = this.peek();
    if (c === undefined) this.fail("unexpected end of input, expected a value");
    if (c === "{") return this.object();
    if (c === "[") return this.array();
    if (c === '"') return this.string();
    if (c === "-" || (c >= "0" && c <= "9")) return this.number();
    for (const word of ["true", "false", "null"]) {
      if (this.text.startsWith(word, this.i)) {
        this.i += word.length;
        return;
      }
    }
    this.fail(`unexpected character '${c}', expected a value`);
  }

  object(): void {
    this.sequence("}", "a property value", () => {
      this.ws();
      if (this.peek() !== '"') this.fail(this.peek() === undefined ? "unexpected end of input, expected a property name" : `expected a double-quoted property name, found '${this.peek()}'`);
      this.string();
      this.expect(":", "after a property name");
      this.value();
    });
  }

  array(): void {
    this.sequence("]", "an array element", () => this.value());
  }

  /** `{…}` or `[…]`: items separated by commas up to the closing character. */
  private sequence(close: string, after: string, item: () => void): void {
    this.i += 1;
    this.ws();
    if (this.peek() === close) {
      this.i += 1;
      return;
    }
    for (;;) {
      item();
      this.ws();
      const c = this.peek();
      if (c === ",") {
        this.i += 1;
        continue;
      }
      if (c === close) {
        this.i += 1;
        return;
      }
      this.fail(c === undefined ? `unexpected end of input, expected ',' or '${close}' after ${after}` : `expected ',' or '${close}' after ${after}, found '${c}'`);
    }
  }

  string(): void {
    this.i += 1;
    while (this.i < this.text.length) {
      const c = this.text[this.i] as string;
      if (c === '"') {
        this.i += 1;
        return;
      }
      if (c === "\\") this.i += 1;
      else if (c < " ") this.fail("a control character inside a string");
      this.i += 1;
    }
    this.fail("unexpected end of input inside a string");
  }

  number(): void {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.text.slice(this.i, this.i + 64));
    if (!match || match[0] === "-") this.fail("a malformed number");
    this.i += match[0].length;
  }
}

/** The first error in a JSON text, or undefined when it is valid JSON. */
export function locateJsonError(text: string): JsonErrorSite | undefined {
  const scanner = new Scanner(text);
  try {
    scanner.value();
    scanner.ws();
    if (scanner.i < text.length) scanner.fail(`unexpected '${text[scanner.i]}' after the JSON value`);
    return undefined;
  } catch (error) {
    if (error && typeof error === "object" && "offset" in error) return error as JsonErrorSite;
    throw error;
  }
}

/** Line (1-based) and column (0-based) of an offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  return { line: before.split("\n").length, column: offset - (before.lastIndexOf("\n") + 1) };
}
