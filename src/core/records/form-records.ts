/** Records of the portal's one-time form tokens and notices (a leaf: it imports nothing of the core). */

/** A notice shown at the top of a portal page: an action's result, or a confirmation. */
export interface PortalNotice {
  ok: boolean;
  /** the result, which the page shows as done or refused (`V0000:Success`, `V3002:Refund amount exceeds ...`) */
  result: string;
  /** the form had already been sent: this is the first submission's result, nothing more was done */
  repeated?: boolean;
  /** what was done, so the page words it ("Captured $15.00") rather than showing the result code */
  action?: 'capture' | 'cancel' | 'refund';
  /** the amount it moved, in minor units of `currency` */
  amount?: number;
  currency?: string;
}

/** What a form's one-time token did, kept under the token so a second submit answers the first result. */
export interface PortalFormRecord {
  version: number;
  /** the path the form was posted to: the token answers only that action */
  path: string;
  at: number;
  /** `running` from the claim until the action has answered */
  state: 'running' | 'done';
  /** where the answer sent the browser, with the notice that page showed */
  location?: string;
  notice?: PortalNotice;
  /** or the error the action answered (a second submit answers it again) */
  error?: { code: string; message: string; field?: string };
}

/** The server's own notice for the next page a session opens: never taken from the address. */
export interface PortalFlash {
  version: number;
  /** the page (path and query, as redirected to) that shows it */
  page: string;
  notice: PortalNotice;
}
