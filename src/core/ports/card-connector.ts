/**
 * What the gateway asks of an acquirer. Each connector maps its own answers into these outcomes, so a real
 * acquirer is one more module beside the sandbox.
 */
/**
 * EMV 3-D Secure 2 browser data the hosted card page collects (the browser channel's device data), passed
 * to the acquirer with the authorisation so the issuer can decide on a frictionless flow.
 */
export interface BrowserInfo {
  screen_width?: number;
  screen_height?: number;
  color_depth?: number;
  /** minutes, as JavaScript's Date.getTimezoneOffset() (UTC minus local time) */
  tz_offset?: number;
  language?: string;
  java_enabled: boolean;
  javascript_enabled: boolean;
  /** the browser's User-Agent and Accept headers, as the card page's request carried them */
  user_agent?: string;
  accept_header?: string;
}

export interface CardAuthorisation {
  reference: string;
  pan: string;
  expMonth: string;
  expYear: string;
  /** absent for token and recurring charges */
  securityCode?: string;
  amount: number;
  currency: string;
  /** do3DS asks for authentication; no3DS goes straight to authorisation */
  threeDS: 'do3DS' | 'no3DS';
  /** results of a 3-D Secure done elsewhere (additional_information.mpi_info) */
  mpi?: { eci?: string; cavv?: string; xid?: string; dsTransID?: string };
  recurring?: boolean;
  /** the shopper's browser (hosted card page only) */
  browser?: BrowserInfo;
}

export type DeclineReason = 'DECLINED' | 'INSUFFICIENT_FUNDS' | 'EXPIRED_CARD' | 'THREEDS_FAILED';

export type AuthorisationOutcome =
  | { kind: 'approved'; connectorRef: string; threedsResult: string }
  | { kind: 'declined'; connectorRef: string; reason: DeclineReason; threedsResult: string }
  | { kind: 'challenge'; connectorRef: string }
  | { kind: 'error'; message: string };

export type OperationOutcome = { ok: true; connectorRef: string } | { ok: false; message: string };

export interface CardConnector {
  readonly code: string;
  /** name shown in answers (`connector`) */
  readonly displayName: string;
  authorise(req: CardAuthorisation): Promise<AuthorisationOutcome>;
  /** Finishes a 3-D Secure challenge started by authorise. */
  completeChallenge(connectorRef: string, code: string): Promise<AuthorisationOutcome>;
  capture(connectorRef: string, amount: number, currency: string): Promise<OperationOutcome>;
  void(connectorRef: string): Promise<OperationOutcome>;
  /**
   * `reference` is the gateway's refund_reference_id: the same refund asked again (after a crash between the
   * acquirer's answer and our record) carries the same reference, so the acquirer can refuse to pay it twice.
   */
  refund(connectorRef: string, amount: number, currency: string, reference: string): Promise<OperationOutcome>;
}

export interface ConnectorRegistry {
  get(code: string): CardConnector | undefined;
}

export function connectorRegistry(connectors: CardConnector[]): ConnectorRegistry {
  const map = new Map(connectors.map((c) => [c.code, c]));
  return { get: (code) => map.get(code) };
}
