package main

// NOTE: jetrpc proxy's cache flags (--cache NAME=TTL, --cache-policy,
// --cache-nats) and what they build: a gateway/cache Store and Policy.
// proxy.go defines them on its flag set and calls build once its
// upstreams are up.

import (
	"context"
	"errors"
	"flag"

	"github.com/jetrpc/jetrpc/gateway/cache"
	"github.com/jetrpc/jetrpc/gateway/cache/natskv"
)

// proxyCacheFlags are the cache flags of jetrpc proxy.
type proxyCacheFlags struct {
	rules  []string // --cache NAME=TTL, as given
	policy string   // --cache-policy: "" or "ethereum"
	nats   string   // --cache-nats URL: share the cache through JetStream KV
}

// upstreamCall calls method on the gateway's default upstream group and
// appends the raw result to dst (the ethereum policy follows the finalized
// block with it).
type upstreamCall func(ctx context.Context, dst []byte, method string, params []byte) ([]byte, error)

func (c *proxyCacheFlags) define(fs *flag.FlagSet) {
	fs.Func("cache", "answer `NAME=TTL` from the cache (repeatable; NAME* is a prefix)", func(v string) error {
		c.rules = append(c.rules, v)
		return nil
	})
	fs.StringVar(&c.policy, "cache-policy", "", "built-in cache `POLICY`: ethereum")
	fs.StringVar(&c.nats, "cache-nats", "", "share the cache between replicas through NATS JetStream at `URL`")
}

// enabled reports whether any cache flag was given.
func (c *proxyCacheFlags) enabled() bool {
	return len(c.rules) > 0 || c.policy != "" || c.nats != ""
}

// build makes the Store and Policy the flags ask for; stop releases them
// (the NATS connection, the finality follower). With no cache flag it
// returns nils and a no-op stop.
//
// The store is in memory (cache.Memory, its default budget) unless
// --cache-nats names a NATS server, then a natskv.Store on it (with a
// memory front cache). The policy is the --cache rules, then the built-in
// policy: a rule overrides the policy for its methods. The ethereum policy
// follows the finalized block through call, every few seconds from now
// until stop; ctx bounds only the set-up (connecting to NATS).
func (c *proxyCacheFlags) build(ctx context.Context, call upstreamCall) (store cache.Store, policy cache.Policy, stop func(), err error) {
	noop := func() {}
	if !c.enabled() {
		return nil, nil, noop, nil
	}
	var chain cache.Chain
	if len(c.rules) > 0 {
		rules, err := cache.ParseRules(c.rules)
		if err != nil {
			return nil, nil, noop, errors.New("--cache: " + err.Error())
		}
		chain = append(chain, rules)
	}
	var fin *cache.Finality
	switch c.policy {
	case "":
	case "ethereum":
		fin = cache.NewFinality(cache.CallFunc(call), nil)
		chain = append(chain, cache.NewEthereum(fin, nil))
	default:
		return nil, nil, noop, errors.New(`--cache-policy: unknown policy "` + c.policy + `" (want ethereum)`)
	}
	if len(chain) == 0 {
		return nil, nil, noop, errors.New("--cache-nats: nothing is cacheable without --cache NAME=TTL or --cache-policy ethereum")
	}
	policy = chain
	if len(chain) == 1 {
		policy = chain[0]
	}
	closeStore := noop
	if c.nats != "" {
		s, err := natskv.Connect(ctx, c.nats, nil)
		if err != nil {
			return nil, nil, noop, errors.New("--cache-nats " + c.nats + ": " + err.Error())
		}
		store, closeStore = s, s.Close
	} else {
		store = cache.NewMemory(nil)
	}
	if fin != nil {
		fin.Start(context.WithoutCancel(ctx))
	}
	return store, policy, func() {
		if fin != nil {
			fin.Stop()
		}
		closeStore()
	}, nil
}
