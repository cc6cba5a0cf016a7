"""The wallet's rules, pure: rounds, bets, clocks and balances are passed in, nothing is read
or written.

- `betting`: what a slip must satisfy, how a round's book is sealed, ledger entries, and
  the refusals with their codes;
- `payment`: which settled bets the wallet pays (`plan_payment`) and what paying them
  writes (`pay`).
"""
