// manifest.json expanded as Claude Desktop expands it, by the official @anthropic-ai/mcpb library.
//
//   node expand_manifest.mjs NPM_PREFIX MANIFEST EXTENSION_FOLDER < user-configs.json
//
// NPM_PREFIX holds node_modules/@anthropic-ai/mcpb. Standard input is a JSON list of user_config
// objects (what the user typed in the extension's settings); standard output is the JSON list of
// the server configurations getMcpConfigForManifest makes of them (command, args, env), null
// where it makes none.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [prefix, manifestPath, extensionPath] = process.argv.slice(2);
const require = createRequire(path.join(prefix, "package.json"));
const { getMcpConfigForManifest } = await import(
  pathToFileURL(require.resolve("@anthropic-ai/mcpb")).href
);

const manifest = JSON.parse(readFileSync(manifestPath, "utf-8"));
const userConfigs = JSON.parse(readFileSync(0, "utf-8"));
const home = homedir();
const systemDirs = {
  HOME: home,
  DATA: path.join(home, ".local", "share"),
  DOCUMENTS: path.join(home, "Documents"),
  DOWNLOADS: path.join(home, "Downloads"),
  DESKTOP: path.join(home, "Desktop"),
};
const configs = [];
for (const userConfig of userConfigs) {
  const config = await getMcpConfigForManifest({
    manifest,
    extensionPath,
    systemDirs,
    userConfig,
    pathSeparator: path.sep,
  });
  configs.push(config ?? null);
}
process.stdout.write(JSON.stringify(configs));
