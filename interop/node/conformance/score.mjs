// score.mjs DIR LABEL: reads the checks.json files that the MCP
// conformance suite wrote under DIR (its -o option, one directory per
// scenario), prints one line with the scenarios and checks passed, and every
// check that is a FAILURE or a WARNING; exits 1 when there is any (the
// suite's own exit status ignores warnings), and when no scenario ran.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const [dir, label] = process.argv.slice(2);
let scenarios = 0, clean = 0, ok = 0, failed = 0, warned = 0;
const bad = [];
for (const d of readdirSync(dir).sort()) {
  let checks;
  try { checks = JSON.parse(readFileSync(join(dir, d, 'checks.json'), 'utf8')); } catch { continue; }
  scenarios++;
  const name = d.replace(/^server-/, '').replace(/-\d{4}-\d\d-\d\dT.*$/, '');
  let good = true;
  for (const c of checks) {
    if (c.status === 'SUCCESS') ok++;
    else if (c.status === 'FAILURE' || c.status === 'WARNING') {
      c.status === 'FAILURE' ? failed++ : warned++;
      good = false;
      bad.push(`  ${c.status} ${name}: ${c.id || c.name}: ${c.errorMessage || c.description}`);
    }
  }
  if (good) clean++;
}
console.log(`${label}: ${clean}/${scenarios} scenarios, ${ok} checks passed, ${failed} failed, ${warned} warnings`);
for (const l of bad) console.log(l);
process.exit(scenarios > 0 && failed === 0 && warned === 0 ? 0 : 1);
