import { describe, expect, it } from "vitest";
import { lineColumn, locateJsonError } from "../../modules/registry/json-error.ts";

describe("locateJsonError", () => {
  const cases: [string, number, RegExp][] = [
    ["", 0, /unexpected end of input, expected a value/],
    ['{\n  "a": 1,\n', 12, /unexpected end of input, expected a property name/],
    ['{"a" 1}', 5, /expected ':' after a property name, found '1'/],
    ['{"a":1 "b":2}', 7, /expected ',' or '}' after a property value, found '"'/],
    ["[1,2", 4, /unexpected end of input, expected ',' or ']' after an array element/],
    ["[1,,2]", 3, /unexpected character ',', expected a value/],
    ['{"a":tru}', 5, /unexpected character 't'/],
    ['"abc', 4, /unexpected end of input inside a string/],
    ["{} x", 3, /unexpected 'x' after the JSON value/],
    ["-", 0, /a malformed number/],
  ];
  for (const [text, offset, message] of cases) {
    it(`finds ${JSON.stringify(text)} wrong at ${offset}`, () => {
      const site = locateJsonError(text);
      expect(site?.offset).toBe(offset);
      expect(site?.message).toMatch(message);
      expect(() => JSON.parse(text)).toThrow();
    });
  }
  it("accepts what JSON.parse accepts", () => {
    for (const text of ['{"a":[1,-2.5e3,true,false,null,"x\\"y"],"b":{}}', " [] ", '"\\u00e9"', "0"]) {
      expect(() => JSON.parse(text)).not.toThrow();
      expect(locateJsonError(text)).toBeUndefined();
    }
  });
  it("gives 1-based lines and 0-based columns", () => {
    expect(lineColumn("ab\ncd", 4)).toEqual({ line: 2, column: 1 });
    expect(lineColumn("", 0)).toEqual({ line: 1, column: 0 });
  });
});
