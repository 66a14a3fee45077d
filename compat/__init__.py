"""compat: run unmodified Paddle 1.x programs on today's Paddle."""
