// One cold module init: a fresh Node process imports a bundle, as Lambda's runtime imports a
// handler, and prints how long the import took in milliseconds: wall time, then the CPU time the
// process spent in it (all its threads; steadier than wall time on a shared machine).
const cpuBefore = process.cpuUsage();
const started = performance.now();
await import(process.argv[2]);
const wall = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
process.stdout.write(`${wall.toFixed(3)} ${((cpu.user + cpu.system) / 1000).toFixed(3)}\n`);
