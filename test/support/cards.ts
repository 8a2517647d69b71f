/** DESIGN section 7's test cards, and the security code the tests use. */
export const CARDS = {
  approved: '4242424242424242',
  approvedVisa2: '4444333322221111',
  approvedMastercard: '5555555555554444',
  declined: '4000000000000002',
  insufficientFunds: '4000000000009995',
  expiredCard: '4000000000000069',
  processingError: '4000000000000119',
  challenge: '4000002500003155',
} as const;

export const ALL_TEST_CARDS: string[] = Object.values(CARDS);
export const TEST_SECURITY_CODE = '737';
export const CHALLENGE_CODE = '123456';

/** `body` with its Luhn check digit appended: a number that passes the check (an order number shaped like a card). */
export function luhnNumber(body: string): string {
  for (let d = 0; d <= 9; d++) {
    const n = `${body}${d}`;
    let sum = 0;
    for (let i = 0; i < n.length; i++) {
      let x = Number(n[n.length - 1 - i]);
      if (i % 2 === 1) x = x * 2 > 9 ? x * 2 - 9 : x * 2;
      sum += x;
    }
    if (sum % 10 === 0) return n;
  }
  throw new Error('unreachable: one of ten check digits passes');
}
