import { parentPort } from 'node:worker_threads';
import { GatewayError } from '../core/kernel/errors.js';
import { parseBodyText, type BodyBounds } from './body-text.js';

/** A body to read, as http/body-pool.ts sends it. */
export interface ParseTask {
  id: number;
  text: string;
  bounds: BodyBounds;
}

/** The fields read, or the refusal (a GatewayError's parts: a class does not cross threads). */
export type ParseAnswer =
  | { id: number; fields: Record<string, unknown> }
  | { id: number; refused: { code: GatewayError['code']; message: string; field: string | undefined } }
  | { id: number; failed: string };

/** One body worker: reads each body it is sent, one at a time, off the gateway's event loop. */
parentPort?.on('message', (task: ParseTask) => {
  let answer: ParseAnswer;
  try {
    answer = { id: task.id, fields: parseBodyText(task.text, task.bounds) };
  } catch (err) {
    answer =
      err instanceof GatewayError
        ? { id: task.id, refused: { code: err.code, message: err.message, field: err.field } }
        : { id: task.id, failed: err instanceof Error ? err.message : String(err) };
  }
  parentPort!.postMessage(answer);
});
