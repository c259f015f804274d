package main

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/jetrpc/jetrpc/gateway"
)

// gatewayCollector exposes a gateway's Stats on /metrics: per route and
// per upstream.
type gatewayCollector struct{ gw *gateway.Gateway }

var (
	routeLabels    = []string{"route", "group"}
	upstreamLabels = []string{"group", "upstream"}
	groupLabels    = []string{"group"}

	gwRouteCalls   = prometheus.NewDesc("jetrpc_gateway_route_calls_total", "Calls and notifications forwarded on a route.", routeLabels, nil)
	gwRouteErrors  = prometheus.NewDesc("jetrpc_gateway_route_errors_total", "Forwarded calls no upstream answered.", routeLabels, nil)
	gwRouteLimited = prometheus.NewDesc("jetrpc_gateway_route_limited_total", "Calls refused over the route's rate.", routeLabels, nil)
	gwCacheHits    = prometheus.NewDesc("jetrpc_gateway_cache_hits_total", "Calls answered from the cache.", routeLabels, nil)
	gwRouteSeconds = prometheus.NewDesc("jetrpc_gateway_route_seconds_total", "Total time of the calls forwarded on a route.", routeLabels, nil)
	gwUpOK         = prometheus.NewDesc("jetrpc_gateway_upstream_calls_total", "Attempts an upstream answered.", upstreamLabels, nil)
	gwUpFailed     = prometheus.NewDesc("jetrpc_gateway_upstream_errors_total", "Attempts that failed in the transport.", upstreamLabels, nil)
	gwUpLatency    = prometheus.NewDesc("jetrpc_gateway_upstream_latency_seconds", "Moving average of an upstream's answers.", upstreamLabels, nil)
	gwUpHealthy    = prometheus.NewDesc("jetrpc_gateway_upstream_healthy", "1 when the upstream's last probe answered and its breaker is closed.", upstreamLabels, nil)
	gwUpOpen       = prometheus.NewDesc("jetrpc_gateway_upstream_breaker_open", "1 while the upstream is ejected (its circuit breaker open).", upstreamLabels, nil)
	gwHedges       = prometheus.NewDesc("jetrpc_gateway_hedges_total", "Hedged attempts sent.", groupLabels, nil)
	gwRetries      = prometheus.NewDesc("jetrpc_gateway_retries_total", "Extra attempts of idempotent calls after a failure.", groupLabels, nil)
	gwFailovers    = prometheus.NewDesc("jetrpc_gateway_failovers_total", "Attempts moved to another upstream.", groupLabels, nil)
)

func (c gatewayCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{gwRouteCalls, gwRouteErrors, gwRouteLimited, gwCacheHits, gwRouteSeconds,
		gwUpOK, gwUpFailed, gwUpLatency, gwUpHealthy, gwUpOpen, gwHedges, gwRetries, gwFailovers} {
		ch <- d
	}
}

func (c gatewayCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.gw.Stats()
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	for _, r := range st.Routes {
		counter(gwRouteCalls, float64(r.Calls), r.Match, r.Group)
		counter(gwRouteErrors, float64(r.Errors), r.Match, r.Group)
		counter(gwRouteLimited, float64(r.Limited), r.Match, r.Group)
		counter(gwCacheHits, float64(r.CacheHits), r.Match, r.Group)
		counter(gwRouteSeconds, r.Latency.Seconds(), r.Match, r.Group)
	}
	for _, g := range st.Groups {
		counter(gwHedges, float64(g.Pool.Hedges), g.Name)
		counter(gwRetries, float64(g.Pool.Retries), g.Name)
		counter(gwFailovers, float64(g.Pool.Failovers), g.Name)
		for i, e := range g.Pool.Endpoints {
			url := ""
			if i < len(g.URLs) {
				url = g.URLs[i]
			}
			counter(gwUpOK, float64(e.OK), g.Name, url)
			counter(gwUpFailed, float64(e.Failed), g.Name, url)
			gauge(gwUpLatency, e.Latency.Seconds(), g.Name, url)
			gauge(gwUpHealthy, b2f(i < len(g.Healthy) && g.Healthy[i]), g.Name, url)
			gauge(gwUpOpen, b2f(e.Ejected), g.Name, url)
		}
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
