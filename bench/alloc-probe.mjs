import process from 'node:process';
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
// Preloaded into the gateway by `npm run bench -- --alloc` (node --import): V8's sampling heap profiler over
// the process's whole life, objects that were collected included (without them it shows what is still
// alive, not what a request allocates), written to BENCH_ALLOC_DIR when the process exits.
const dir = process.env.BENCH_ALLOC_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('HeapProfiler.enable');
  session.post('HeapProfiler.startSampling', {
    samplingInterval: 16384,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  // a session of the process's own thread answers at once, so this runs to its end in the exit handler
  process.on('exit', () => {
    session.post('HeapProfiler.stopSampling', (err, result) => {
      if (!err) writeFileSync(join(dir, `alloc-${process.pid}.heapprofile`), JSON.stringify(result.profile));
    });
  });
}
