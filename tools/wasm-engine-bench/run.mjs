// Runs the mixed sequence in wasm under Node (V8) and prints the median thread CPU time:
//   node run.mjs FILE.wasm [ROUNDS] [STEPS]
// Process CPU time (`process.cpuUsage`, user + system) around the wasm call; V8's own
// background threads add a little to it, never take it away.
import { readFileSync } from 'node:fs';

const [file, rounds = '7', steps = '1000000'] = process.argv.slice(2);
const { instance } = await WebAssembly.instantiate(readFileSync(file), {});
const x = instance.exports;
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const out = { off: [], on: [] };
for (let i = 0; i < Number(rounds); i++) {
  for (const [key, record] of [['off', 0], ['on', 1]]) {
    x.prepare(Number(steps), record);
    const t = cpu();
    x.run();
    out[key].push(cpu() - t);
  }
}
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
console.log(
  `${file}: ${steps} steps, median of ${rounds} rounds (process CPU ms): ` +
    `recording off ${median(out.off).toFixed(1)}, recording on ${median(out.on).toFixed(1)} ` +
    `(${x.events()} events); all: off ${out.off.map((v) => v.toFixed(0)).join(' ')}; on ${out.on.map((v) => v.toFixed(0)).join(' ')}`,
);
