import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import type { CoreDeps } from '../../../core/ports/deps.js';
import {
  EVIDENCE_FIELDS,
  EVIDENCE_MAX_CHARS,
  answersSent,
  isOpenDispute,
  type DisputeRecord,
} from '../../../core/records/dispute-record.js';
import { pastDue } from '../../../core/disputes/rules.js';
import { acceptDisputeByHand, disputeEvidenceByHand, ownDispute } from '../../../core/portal/dispute-actions.js';
import { actOnce, takeNotice, type PortalNotice } from '../../../core/portal/forms.js';
import { requireAdmin } from '../../../core/portal/actions.js';
import { sessionOf } from '../../middleware/portal.js';
import { renderPortal } from '../../render/portal.js';
import { fieldErrors } from '../../schemas/portal.js';

const DAY = 86_400_000;
const LISTED = 200;

const evidenceText = z.string().max(EVIDENCE_MAX_CHARS, `must be at most ${EVIDENCE_MAX_CHARS} characters`).optional().default('');
/** The evidence form: the four fields, and which button sent it (`submit` 1 sends, 0 saves a draft). */
const evidenceForm = z.object({
  product_description: evidenceText,
  customer_communication: evidenceText,
  shipping_tracking: evidenceText,
  uncategorized_text: evidenceText,
  submit: z.enum(['0', '1'], { error: 'must be 0 (save a draft) or 1 (submit)' }).optional().default('0'),
});

interface DisputePageForm {
  errors?: Record<string, string>;
  values?: Record<string, string>;
  status?: number;
  notice?: PortalNotice | undefined;
}

async function showDispute(deps: CoreDeps, res: Response, disputeId: string, form: DisputePageForm = {}): Promise<void> {
  const session = sessionOf(res);
  const { dispute: d } = await ownDispute(deps, session, disputeId);
  const admin = session.role === 'admin';
  const answerable = isOpenDispute(d.status) && d.status !== 'under_review';
  renderPortal(
    res,
    deps.timezone,
    'dispute',
    {
      active: 'disputes',
      d,
      fields: EVIDENCE_FIELDS,
      viewer: !admin,
      can: { evidence: admin && answerable && !pastDue(d, deps.clock.now()), accept: admin && answerable },
      // answers sent whose outcome the acquirer has not told (the gateway sends them again at the due date)
      awaiting: answerable ? answersSent(d).map((a) => ({ act: a.act, at: a.at })) : [],
      errors: form.errors ?? {},
      values: form.values ?? {},
      notice: form.notice,
    },
    form.status ?? 200,
  );
}

const pageOf = (req: Request): string => `/portal/disputes/${encodeURIComponent(String(req.params.disputeId))}`;

/**
 * The portal's disputes (docs/portal.md and 13): /portal/disputes lists the open ones by due date; a dispute's page
 * tells its story and lets an admin save or send evidence, or accept it, through the same core as the API.
 */
export function portalDisputesRouter(deps: CoreDeps): Router {
  const router = Router();

  router.get('/portal/disputes', async (_req, res) => {
    const m = sessionOf(res).merchant_id;
    const now = deps.clock.now();
    const found: DisputeRecord[] = [];
    for (const a of deps.merchants.accountsOf(m)) {
      const ids = await deps.store.openDisputes(m, a.account_id, LISTED);
      for (const d of await deps.store.getDisputes(m, ids)) if (d && isOpenDispute(d.status)) found.push(d);
    }
    found.sort((x, y) => x.due_at - y.due_at);
    const disputes = found.slice(0, LISTED).map((d) => ({ ...d, daysLeft: Math.ceil((d.due_at - now) / DAY) }));
    renderPortal(res, deps.timezone, 'disputes', { active: 'disputes', disputes });
  });

  router.get('/portal/disputes/:disputeId', async (req, res) => {
    const notice = await takeNotice(deps, sessionOf(res), req.originalUrl);
    await showDispute(deps, res, req.params.disputeId, { notice });
  });

  router.post('/portal/disputes/:disputeId/evidence', async (req, res) => {
    const session = sessionOf(res);
    requireAdmin(session);
    const id = req.params.disputeId;
    const parsed = evidenceForm.safeParse(req.body);
    if (!parsed.success) {
      const values = Object.fromEntries(EVIDENCE_FIELDS.map((f) => [f, String((req.body as Record<string, unknown>)[f] ?? '')]));
      return showDispute(deps, res, id, { errors: fieldErrors(parsed.error), values, status: 400 });
    }
    const { submit, ...evidence } = parsed.data;
    const outcome = await actOnce(deps, session, (req.body as Record<string, unknown>)._csrf, req.path, async () => {
      const r = await disputeEvidenceByHand(deps, session, id, evidence, submit === '1');
      return { location: pageOf(req), notice: { ok: r.ok, result: r.result } };
    });
    res.redirect(303, outcome.location);
  });

  router.post('/portal/disputes/:disputeId/accept', async (req, res) => {
    const session = sessionOf(res);
    requireAdmin(session);
    const outcome = await actOnce(deps, session, (req.body as Record<string, unknown>)._csrf, req.path, async () => {
      const r = await acceptDisputeByHand(deps, session, req.params.disputeId);
      return { location: pageOf(req), notice: { ok: r.ok, result: r.result } };
    });
    res.redirect(303, outcome.location);
  });

  return router;
}
