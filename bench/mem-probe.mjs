import process from 'node:process';
// Preloaded into the gateway by the bench's soak (node --expose-gc --import): answers an IPC message with the
// process's memory use after a full collection, so the heap figures compare live data, not garbage.
process.on('message', (msg) => {
  if (msg !== 'memory') return;
  globalThis.gc?.();
  process.send?.(process.memoryUsage());
});
process.channel?.unref();
