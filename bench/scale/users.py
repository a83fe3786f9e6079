#!/usr/bin/env python3
"""Writes COUNT users as `gatehouse user import` JSON lines (docs/importing-users.md) to stdout.

Usage: bench/scale/users.py COUNT PASSWORD_HASH [shuffled]

Every row carries PASSWORD_HASH, one Argon2id PHC string computed once (by `gatehouse user create`), so the
import does not pay Argon2id per row and every account signs in with that one known password. Each row has an
external id and one provider identity, as a Devise + OmniAuth export would; emails are u<N>@scale.example.
With `shuffled` the emails' numbers are a permutation of the rows' (N = (row - 1) * 7919 mod COUNT + 1), so
email order is not creation order, as in a real user base (every N from 1 to COUNT is still used once).
"""
import json
import sys


def main() -> None:
    count, password_hash = int(sys.argv[1]), sys.argv[2]
    shuffled = sys.argv[3:] == ["shuffled"]
    if shuffled and count % 7919 == 0:
        sys.exit("users.py: COUNT must not be a multiple of 7919 when shuffled")
    out = sys.stdout
    base = 1_500_000_000  # creation times a few seconds apart, in the past, in row order
    for row in range(1, count + 1):
        number = (row - 1) * 7919 % count + 1 if shuffled else row
        out.write(json.dumps({
            "email": f"u{number}@scale.example",
            "name": f"Scale User {number}",
            "verified": True,
            "created_at": base + row * 7,
            "password_hash": password_hash,
            "external_id": f"ext-{number}",
            "identities": [{"provider": "google_oauth2", "uid": f"g-{number}", "email": f"u{number}@scale.example"}],
        }, separators=(",", ":")))
        out.write("\n")


if __name__ == "__main__":
    main()
