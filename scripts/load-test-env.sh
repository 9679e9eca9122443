# Sourced by the scripts that drive load (benchmarks, crash, cluster,
# schemathesis, browser and SIGTERM tests): config/README.md's load-test
# settings, raising the route-class rate limits (sign-in, registration,
# checkout) that a shop ships with and a load driver on one address would
# meet within seconds. Exported, so every server the script starts has them.
export AXIOM_RATE_LIMIT_SIGN_IN_PER_MINUTE=${AXIOM_RATE_LIMIT_SIGN_IN_PER_MINUTE:-100000000}
export AXIOM_RATE_LIMIT_SIGN_IN_BURST=${AXIOM_RATE_LIMIT_SIGN_IN_BURST:-10000000}
export AXIOM_RATE_LIMIT_REGISTRATION_PER_MINUTE=${AXIOM_RATE_LIMIT_REGISTRATION_PER_MINUTE:-100000000}
export AXIOM_RATE_LIMIT_REGISTRATION_BURST=${AXIOM_RATE_LIMIT_REGISTRATION_BURST:-10000000}
export AXIOM_RATE_LIMIT_CHECKOUT_PER_MINUTE=${AXIOM_RATE_LIMIT_CHECKOUT_PER_MINUTE:-100000000}
export AXIOM_RATE_LIMIT_CHECKOUT_BURST=${AXIOM_RATE_LIMIT_CHECKOUT_BURST:-10000000}
