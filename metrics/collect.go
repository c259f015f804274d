package metrics

import (
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/prometheus/client_golang/prometheus"
)

// The metrics; doc.go has the table.
var (
	descCalls = prometheus.NewDesc("jetrpc_calls_total",
		"Calls and notifications handled, by method and outcome (code: ok, the error code, or other).",
		[]string{"method", "code"}, nil)
	descDuration = prometheus.NewDesc("jetrpc_call_duration_seconds",
		"How long the handlers of a method ran.",
		[]string{"method"}, nil)
	descInFlight = prometheus.NewDesc("jetrpc_calls_in_flight",
		"Calls and notifications whose handler is running, by method.",
		[]string{"method"}, nil)
	descRequestSize = prometheus.NewDesc("jetrpc_request_size_bytes",
		"Sizes of the messages processed (a single message or a whole batch).",
		nil, nil)
	descResponseBytes = prometheus.NewDesc("jetrpc_response_bytes_total",
		"Bytes of the responses to the messages processed (framing aside).",
		nil, nil)
	descBatch = prometheus.NewDesc("jetrpc_batch_size",
		"Members of the batches processed.",
		nil, nil)
	descRejections = prometheus.NewDesc("jetrpc_rejections_total",
		"Messages and calls refused by a limit, by reason.",
		[]string{"reason"}, nil)
	descInvalid = prometheus.NewDesc("jetrpc_invalid_messages_total",
		"Messages that were not valid JSON (parse_error) or not a valid Request (invalid_request).",
		[]string{"reason"}, nil)
	descDropped = prometheus.NewDesc("jetrpc_dropped_responses_total",
		"Responses that arrived for no call of the server; they are dropped.",
		nil, nil)
	descPeer = prometheus.NewDesc("jetrpc_peer_messages_total",
		"Messages handlers sent to their client through the Peer, by kind (call, notification, reply).",
		[]string{"kind"}, nil)
	descConnsOpen = prometheus.NewDesc("jetrpc_connections_open",
		"Connections open, by transport (tcp, stdio, http, ws, sse: ws and sse are the WebSocket connections and event streams).",
		[]string{"transport"}, nil)
	descConnsAccepted = prometheus.NewDesc("jetrpc_connections_accepted_total",
		"Connections opened, by transport (tcp, stdio, http, ws, sse).",
		[]string{"transport"}, nil)
	descWriteTimeouts = prometheus.NewDesc("jetrpc_write_timeouts_total",
		"Connections dropped because a write made no progress within WriteTimeout, by transport.",
		[]string{"transport"}, nil)
)

// rejection reasons and where they come from.
var rejections = []struct {
	reason string
	ev     dispatch.Event
	conn   netserver.ConnEvent // when ev is not set
	isConn bool
}{
	{reason: "overloaded", ev: dispatch.EventOverloaded},
	{reason: "shutting_down", ev: dispatch.EventRejected},
	{reason: "batch_too_large", ev: dispatch.EventBatchTooLarge},
	{reason: "too_deep", ev: dispatch.EventTooDeep},
	{reason: "response_too_large", ev: dispatch.EventResponseTooLarge},
	{reason: "timeout", ev: dispatch.EventTimeout},
	{reason: "message_too_large", conn: netserver.ConnTooLarge, isConn: true},
	{reason: "max_conns", conn: netserver.ConnMaxConns, isConn: true},
	{reason: "max_conns_per_ip", conn: netserver.ConnMaxConnsPerIP, isConn: true},
	{reason: "rate_limited", conn: netserver.ConnRateLimited, isConn: true},
	{reason: "unauthorized", conn: netserver.ConnUnauthorized, isConn: true},
	{reason: "origin_refused", conn: netserver.ConnOriginRefused, isConn: true},
}

// Describe sends the descriptors of every metric (prometheus.Collector).
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range [...]*prometheus.Desc{descCalls, descDuration, descInFlight, descRequestSize, descResponseBytes,
		descBatch, descRejections, descInvalid, descDropped, descPeer, descConnsOpen,
		descConnsAccepted, descWriteTimeouts} {
		ch <- d
	}
}

// Collect sends the current values (prometheus.Collector).
//
// A method's ok count is the calls ended less the failed ones, read in the opposite order to End's, so that it is
// never too low; a failed call between its two adds may count as ok for
// one scrape, and the ok count exported never goes down (lastOK), so it
// stays a counter.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, md := range m.order {
		var failed uint64
		for i := 1; i < len(md.errs); i++ {
			n := md.errs[i].Load()
			failed += n
			if n > 0 {
				ch <- counter(descCalls, n, md.name, m.labels[i])
			}
		}
		ended := md.counts.Ended()
		started := md.counts.Started() // after ended: started >= ended
		ch <- md.latency.metric(descDuration, ended, md.name)
		md.lastOK = max(md.lastOK, ended-min(failed, ended))
		if md.name != UnknownMethodLabel {
			ch <- counter(descCalls, md.lastOK, md.name, m.labels[0])
		}
		ch <- gauge(descInFlight, float64(started-min(ended, started)), md.name)
	}
	ch <- m.msgIn.metric(descRequestSize, 0)
	ch <- counter(descResponseBytes, m.msgIn.pc.Load(m.msgIn.extraAt()))
	ch <- m.batch.metric(descBatch, 0)
	for _, r := range rejections {
		ch <- counter(descRejections, m.rejected(r.isConn, r.ev, r.conn), r.reason)
	}
	ch <- counter(descInvalid, m.events[dispatch.EventParseError].Load(), "parse_error")
	ch <- counter(descInvalid, m.events[dispatch.EventInvalid].Load(), "invalid_request")
	ch <- counter(descDropped, m.events[dispatch.EventDropped].Load())
	ch <- counter(descPeer, m.events[dispatch.EventPeerCall].Load(), "call")
	ch <- counter(descPeer, m.events[dispatch.EventPeerNotify].Load(), "notification")
	ch <- counter(descPeer, m.events[dispatch.EventPeerReply].Load(), "reply")
	for t := netserver.Transport(0); t < netserver.NumTransports; t++ {
		c := &m.conns[t]
		opened, closed := c[netserver.ConnOpened].Load(), c[netserver.ConnClosed].Load()
		ch <- gauge(descConnsOpen, float64(opened-min(closed, opened)), t.String())
		ch <- counter(descConnsAccepted, opened, t.String())
		ch <- counter(descWriteTimeouts, c[netserver.ConnWriteTimeout].Load(), t.String())
	}
}

// rejected is the count of one rejection reason: an engine event, or a
// connection event summed over the transports.
func (m *Metrics) rejected(isConn bool, ev dispatch.Event, cev netserver.ConnEvent) uint64 {
	if !isConn {
		return m.events[ev].Load()
	}
	var n uint64
	for t := range m.conns {
		n += m.conns[t][cev].Load()
	}
	return n
}

func counter(d *prometheus.Desc, n uint64, labels ...string) prometheus.Metric {
	return prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(n), labels...)
}

func gauge(d *prometheus.Desc, v float64, labels ...string) prometheus.Metric {
	return prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
}
