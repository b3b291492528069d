// ESLint (`make lint`): the browser modules (prerender/static/, the demo sites' scripts) and the Node scripts
// (tools/, tests/js/). The recommended rules, and the module graph's rules of docs/architecture.md ("The
// browser modules"): imports name their module as a literal, and a component reaches the SDK through
// `../sdk/svc.js` only (the release tree has no other SDK file: tools/build_static.mjs). no-restricted-imports does
// not see `import()` calls: what they may load is checked by tests/unit/test_browser_modules.py.
import js from "@eslint/js";
import esx from "eslint-plugin-es-x";
import globals from "globals";

export default [
  { ignores: ["prerender/static_build/", "node_modules/", ".venv/", "build/", "dist/"] },
  js.configs.recommended,
  {
    // ES2022, the syntax every browser of the support floor parses (docs/styles.md, "Browsers").
    files: ["prerender/static/**/*.js", "examples/**/static/**/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.browser } },
  },
  // Nor the built-ins after ES2022 that can be told without types (`Object.groupBy`, `Promise.withResolvers`,
  // `Array.fromAsync`...), which the floor's browsers lack: a use with a fallback says
  // so where it stands, with an eslint-disable line. (A method on a prototype, such as `findLast`, cannot be told
  // from an array's own without types: those stay the reviewer's.)
  {
    files: ["prerender/static/**/*.js"],
    ...esx.configs["flat/restrict-to-es2022"],
  },
  {
    files: ["tools/**/*.mjs", "tests/js/**/*.mjs", "eslint.config.js"],
    languageOptions: { ecmaVersion: 2024, sourceType: "module", globals: { ...globals.node } },
  },
  {
    files: ["prerender/static/**/*.js"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "ImportExpression[source.type!='Literal']",
          message: "Name the module as a literal (docs/architecture.md, \"The browser modules\").",
        },
      ],
      eqeqeq: ["error", "smart"],
      // JSON text through sdk/json.js's jsonText, which a page's old library cannot make write the wrong types.
      "no-restricted-properties": [
        "error",
        { object: "JSON", property: "stringify", message: "Use jsonText (sdk/json.js; components: from ./ui.js)." },
      ],
      "no-var": "error",
      "prefer-const": "error",
    },
  },
  {
    files: ["prerender/static/sdk/json.js"],
    rules: { "no-restricted-properties": "off" },
  },
  {
    files: ["prerender/static/components/**/*.js"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^\\.\\./(?!sdk/svc\\.js$)",
              message: "A component reaches the SDK through ../sdk/svc.js only (tools/build_static.mjs bundles the rest).",
            },
          ],
        },
      ],
    },
  },
  {
    // A component's private parts (components/<name>/*.js, bundled into components/<name>.js in the release
    // tree): their siblings and ../ui.js, which has the SDK's services.
    files: ["prerender/static/components/*/**/*.js"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^\\.\\./(?!ui\\.js$)",
              message: "A component's part imports its siblings and ../ui.js only (tools/build_static.mjs bundles it into its component).",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["prerender/static/sdk/**/*.js"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^\\.\\./",
              message: "The SDK imports only its own modules (the drawer is loaded with import(), at run time).",
            },
          ],
        },
      ],
    },
  },
];
