// The low-memory hint of the memory run (scenario.json "memory"): on SIGUSR2 a full garbage collection,
// Bun.gc(true) on Bun, V8's gc() on Node and Deno (exposed at run time: --expose-gc through
// v8.setFlagsFromString, then read from a fresh context). V8's heap does not shrink without one.
import process from 'node:process';
import v8 from 'node:v8';
import vm from 'node:vm';

function collector() {
  if (typeof Bun !== 'undefined') return ['Bun.gc(true)', () => Bun.gc(true)];
  v8.setFlagsFromString('--expose-gc');
  return ['v8 gc() (--expose-gc)', vm.runInNewContext('gc')];
}

export function onLowMemoryHint() {
  const [name, gc] = collector();
  const hint = () => {
    gc();
    console.error(`low-memory hint: ${name}`);
  };
  if (typeof Deno !== 'undefined') Deno.addSignalListener('SIGUSR2', hint);
  else process.on('SIGUSR2', hint);
}
