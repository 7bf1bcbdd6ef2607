"""`make bench`: whole investigations through the real root agent, timed against loopback fakes."""
