import { describe, expect, test } from "bun:test";
import { toExpression } from "./bundle-macro.ts";

describe("the page bundle's export clause becomes the value of one expression", () => {
  test("export names become the keys, local names the values", () => {
    const expr = toExpression(`function a(){return 1}var b=2;export{a as one,b as two,a};\n`);
    expect(new Function(`return ${expr};`)()).toMatchObject({
      one: expect.any(Function),
      two: 2,
      a: expect.any(Function),
    });
  });

  test("a bundle without its export clause, or with another import or export, is refused", () => {
    expect(() => toExpression(`function a(){}`)).toThrow(/no export clause/);
    expect(() => toExpression(`import x from "y";function a(){}export{a};`)).toThrow(/must not import/);
  });
});
