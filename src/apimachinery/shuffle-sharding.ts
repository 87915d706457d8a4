/** k8s.io/apiserver/pkg/util/shufflesharding: deals a hand of queue indexes from a flow's hash. */

/** shufflesharding.MaxHashBits */
export const MAX_HASH_BITS = 60;

/** RequiredEntropyBits: the hash bits a hand of handSize out of deckSize needs. */
export function requiredEntropyBits(deckSize: number, handSize: number): number {
  return Math.ceil(Math.log2(deckSize) * handSize);
}

/** Dealer.Deal: handSize distinct cards from [0, deckSize), drawn from the hash value's mixed-radix digits. */
export function dealHand(hashValue: bigint, deckSize: number, handSize: number): number[] {
  const remainders: number[] = [];
  let h = hashValue;
  for (let i = 0; i < handSize; i++) {
    const radix = BigInt(deckSize - i);
    const next = h / radix;
    remainders.push(Number(h - radix * next));
    h = next;
  }
  const hand: number[] = [];
  remainders.forEach((remainder, i) => {
    let card = remainder;
    for (let j = i - 1; j >= 0; j--) {
      const earlier = remainders[j];
      if (earlier !== undefined && card >= earlier) card++;
    }
    hand.push(card);
  });
  return hand;
}
