import { luhnValid } from '../../src/core/kernel/cards.js';

/** docs/api.md#test-cards-and-risk-triggers's test cards, and the security code the tests use. */
export const CARDS = {
  approved: '4242424242424242',
  approvedVisa2: '4444333322221111',
  approvedMastercard: '5555555555554444',
  declined: '4000000000000002',
  insufficientFunds: '4000000000009995',
  expiredCard: '4000000000000069',
  processingError: '4000000000000119',
  challenge: '4000002500003155',
  /** approved, then disputed when captured (docs/disputes.md): fraudulent, product_not_received, general (an inquiry) */
  disputeFraud: '4000000000000259',
  disputeNotReceived: '4000000000002685',
  disputeInquiry: '4000000000001976',
  /** answered pending (processing), approved or declined 3 minutes later (docs/api.md) */
  processingApproved: '4000000000003022',
  processingDeclined: '4000000000003030',
  /** every call's first answer lost, the sandbox acting 5 seconds later */
  lostAnswer: '4000000000003048',
  /** approved; each refund accepted, then failed 10 minutes later */
  refundFailsLater: '4000000000005126',
  /** disputed when captured (duplicate); its decision reversed 2 days later, a reversed loss charged back again 2 days after that */
  disputeCycle: '4000000000007726',
} as const;

export const ALL_TEST_CARDS: string[] = Object.values(CARDS);
export const TEST_SECURITY_CODE = '737';
export const CHALLENGE_CODE = '123456';

/** `body` (11 to 18 digits) with the check digit that passes luhnValid appended: an order number shaped like a card. */
export function luhnNumber(body: string): string {
  for (let d = 0; d <= 9; d++) if (luhnValid(`${body}${d}`)) return `${body}${d}`;
  throw new Error(`no check digit makes ${body} pass the Luhn check (it must be 11 to 18 digits)`);
}
