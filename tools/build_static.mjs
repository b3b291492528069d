// `make static`: the release tree of prerender's browser files, built with esbuild (package.json) from the
// readable tree prerender/static/ into prerender/static_build/ (gitignored, carried by the wheel: MANIFEST.in).
//
// The release tree mirrors the source paths, so the relative URLs between modules stay the same:
//   sdk/svc.js          the SDK and the modules of sdk/ it imports, bundled into one minified ES module; its
//                       import of the drawer (`import("../components/drawer.js")`) stays a runtime import;
//   components/*.js     each minified on its own, their imports of each other and of `../sdk/svc.js` kept
//                       as they are (every module of a page is loaded under its configuration segment:
//                       docs/sdk.md, section 1); a component's private parts (components/<name>/*.js, which
//                       only components/<name>.js imports) are bundled into it, so that splitting a component
//                       into parts costs no request;
//   css/*.css           each minified.
// The other sdk/*.js are inside svc.js, and the components' parts inside their components: nothing loads them
// by URL, so they are not in the release tree.
// Every file gets precompressed siblings, `<name>.gz` (gzip level 9) and `<name>.br` (brotli, quality 11),
// which prerender sends to browsers that accept them (prerender/blueprints/static_files.py), and the tree
// records in `source-digest` the digest of the source tree it was built from: prerender serves this tree
// only while that digest is the current sources' (prerender/rendering/assets.py), and the readable tree
// otherwise. The digest is the one assets.py computes: SHA-256 over the files in name order, each as its
// path relative to the tree (with `/`), a NUL byte, then its content.
//
// The tree is written next to its final place and renamed into it, so a server never sees half a build.

import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

import * as esbuild from "esbuild";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const SOURCE = join(ROOT, "prerender", "static");
const OUTPUT = join(ROOT, "prerender", "static_build");
const DIGEST_FILE = "source-digest";

/** Every file under `root`, as paths relative to it with `/`, sorted as Python sorts them (code points). */
function filesOf(root) {
  const found = [];
  const walk = (folder) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) found.push(relative(root, path).split(sep).join("/"));
    }
  };
  walk(root);
  return found.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The digest of a tree, as prerender/rendering/assets.py computes it (`tree_digest`). */
function treeDigest(root) {
  const hash = createHash("sha256");
  for (const name of filesOf(root)) {
    hash.update(name);
    hash.update("\0");
    hash.update(readFileSync(join(root, name)));
  }
  return hash.digest("hex");
}

// The support floor (docs/styles.md, "Browsers"): esbuild writes nothing those browsers cannot parse, fails the build
// on source syntax it cannot write for them, and adds to the sheets the prefixes they still need
// (`-webkit-user-select`), which the readable tree served in development lacks.
const BROWSERS = ["es2022", "chrome111", "edge111", "firefox115", "safari16.4"];
/** What esbuild does to every file: minified for the floor's browsers, UTF-8 kept as is rather than escaped. */
const COMMON = { minify: true, charset: "utf8", logLevel: "warning", absWorkingDir: ROOT, target: BROWSERS };

/** Keeps the SDK's imports of the components (the drawer, loaded when it first opens) out of its bundle. */
const componentsStayApart = {
  name: "components-stay-apart",
  setup(builder) {
    builder.onResolve({ filter: /^\.\.\/components\// }, (args) => ({ path: args.path, external: true }));
  },
};

const COMPONENTS = join(SOURCE, "components");

/**
 * Bundles a component's private parts (a module in a folder of components/) into it; every other import stays an
 * import, its path written from components/, where the release module is (a part's `../ui.js` is `./ui.js` there).
 */
const partsInside = {
  name: "parts-inside",
  setup(builder) {
    builder.onResolve({ filter: /^\.\.?\// }, (args) => {
      const target = resolve(args.resolveDir, args.path);
      if (dirname(target) !== COMPONENTS && target.startsWith(COMPONENTS + sep)) return undefined; // a part: bundled
      const path = relative(COMPONENTS, target).split(sep).join("/");
      return { path: path.startsWith("../") ? path : `./${path}`, external: true };
    });
  },
};

async function build(out) {
  // The components themselves; their parts (in folders) are bundled into them.
  const components = filesOf(COMPONENTS).filter((name) => name.endsWith(".js") && !name.includes("/"));
  const sheets = filesOf(join(SOURCE, "css")).filter((name) => name.endsWith(".css"));
  await esbuild.build({
    ...COMMON,
    entryPoints: [join(SOURCE, "sdk", "svc.js")],
    bundle: true,
    format: "esm",
    plugins: [componentsStayApart],
    outfile: join(out, "sdk", "svc.js"),
  });
  await esbuild.build({
    ...COMMON,
    entryPoints: components.map((name) => join(COMPONENTS, name)),
    bundle: true,
    format: "esm",
    plugins: [partsInside],
    outdir: join(out, "components"),
  });
  await esbuild.build({
    ...COMMON,
    entryPoints: sheets.map((name) => join(SOURCE, "css", name)),
    loader: { ".css": "css" },
    outdir: join(out, "css"),
  });
}

/** `<name>.gz` and `<name>.br` next to every file of the tree. */
function precompress(out) {
  for (const name of filesOf(out)) {
    const path = join(out, name);
    const content = readFileSync(path);
    writeFileSync(`${path}.gz`, gzipSync(content, { level: 9 }));
    writeFileSync(
      `${path}.br`,
      brotliCompressSync(content, {
        params: {
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
          [constants.BROTLI_PARAM_SIZE_HINT]: content.length,
        },
      }),
    );
  }
}

async function main() {
  const digest = treeDigest(SOURCE);
  const staging = `${OUTPUT}.tmp-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    await build(staging);
    precompress(staging);
    writeFileSync(join(staging, DIGEST_FILE), `${digest}\n`);
    rmSync(OUTPUT, { recursive: true, force: true });
    renameSync(staging, OUTPUT);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  const sizes = filesOf(OUTPUT)
    .filter((name) => name.endsWith(".js"))
    .map((name) => {
      const size = (suffix) => readFileSync(join(OUTPUT, name + suffix)).length;
      return `${name} ${size("")} B, gzip ${size(".gz")} B, brotli ${size(".br")} B`;
    });
  console.log(`${relative(ROOT, OUTPUT)}: built from ${relative(ROOT, SOURCE)} (${digest.slice(0, 12)})`);
  for (const line of sizes) console.log(`  ${line}`);
}

await main();
