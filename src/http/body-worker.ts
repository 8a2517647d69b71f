import { GatewayError } from '../core/kernel/errors.js';
import { parseBodyText, type BodyBounds } from './body-text.js';

/** A body to read, as http/body-pool.ts sends it. */
export interface ParseTask {
  text: string;
  bounds: BodyBounds;
}

/** The fields read, or the refusal (a GatewayError's parts: a class does not cross threads). */
export type ParseAnswer =
  | { fields: Record<string, unknown> }
  | { refused: { code: GatewayError['code']; message: string; field: string | undefined } }
  | { failed: string };

/** One body, read in a body worker (piscina runs this module), off the gateway's event loop. */
export default function readBody(task: ParseTask): ParseAnswer {
  try {
    return { fields: parseBodyText(task.text, task.bounds) };
  } catch (err) {
    return err instanceof GatewayError
      ? { refused: { code: err.code, message: err.message, field: err.field } }
      : { failed: err instanceof Error ? err.message : String(err) };
  }
}
