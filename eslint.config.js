import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "data/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // Layering (DESIGN.md): views never touch the database; only actions publish events.
    files: ["src/http/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: ["**/db/tx.js", "**/db/connect.js", "**/events/send.js"], message: "Views read through lib/ and write through actions/." }] },
      ],
    },
  },
  {
    // Actions and events are callable from views, jobs and tests alike: no HTTP in them.
    files: ["src/actions/**/*.ts", "src/events/**/*.ts", "src/jobs/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ group: ["**/http/**"], message: "Actions and events never import the HTTP layer." }] }],
    },
  },
  {
    files: ["src/lib/**/*.ts", "src/api-records/**/*.ts", "src/db/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: ["**/events/send.js", "**/actions/**", "**/http/**"], message: "Only actions publish events; lower layers never import upward." }] },
      ],
    },
  },
);
