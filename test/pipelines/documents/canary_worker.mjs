// Worker-thread canary for the offline test: its one fetch must be caught by the network guard.
fetch('http://canary.invalid/')
  .catch(() => {})
  .finally(() => process.exit(0));
