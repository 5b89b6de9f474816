/** Markdown imported `with { type: "text" }` (the bundled skill, src/cli/skill.ts) is its text. */
declare module "*.md" {
  const text: string;
  export default text;
}
