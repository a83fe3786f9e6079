// Backend-neutral store protocols.
