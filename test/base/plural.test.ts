import { describe, expect, it } from 'vitest';
import { count, noun } from '../../src/plural.js';

describe('count: every printed count has the right plural', () => {
  it('one is singular, anything else plural, irregular nouns included', () => {
    expect(count(1, 'entry')).toBe('1 entry');
    expect(count(0, 'entry')).toBe('0 entries');
    expect(count(2000, 'email')).toBe('2,000 emails');
    expect(count(1, 'delivery')).toBe('1 delivery');
    expect(count(3, 'delivery')).toBe('3 deliveries');
    expect(noun(2, 'key')).toBe('keys');
  });
});
