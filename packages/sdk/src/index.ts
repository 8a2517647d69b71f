export * from './signing.js';
export * from './verify.js';
export * from './client.js';
export { parseRespon } from './respon.js';
export { signSampleNotification } from './testing.js';
export type * from './types.js';
