// One cold module init: a fresh Node process imports a bundle, as Lambda's runtime imports a
// handler, and prints how long the import took in milliseconds.
const started = performance.now();
await import(process.argv[2]);
process.stdout.write(`${(performance.now() - started).toFixed(3)}\n`);
