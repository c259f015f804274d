package nethttp

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jetrpc/jetrpc/netserver/internal/seam"
	"github.com/valyala/fasthttp"
)

// httpWorkerIdle is how long fasthttp keeps an idle worker goroutine. Its
// cleaner also sleeps this long between rounds, so after Shutdown its
// goroutine lingers up to this long; fasthttp's default is 10s.
const httpWorkerIdle = time.Second

// configureFastHTTP applies opts to srv (before it serves). The timeouts
// mean for HTTP what they mean for TCP: ReadTimeout bounds reading one
// request once it began, IdleTimeout a keep-alive connection between
// requests, WriteTimeout writing one response.
func configureFastHTTP(srv *fasthttp.Server, set *seam.Settings) {
	srv.Name = "jetrpc"
	srv.MaxRequestBodySize = set.MaxMessage
	srv.Concurrency = set.MaxConns // 0: fasthttp's default, 256 * 1024
	srv.ReadTimeout = set.ReadTimeout
	srv.IdleTimeout = set.IdleTimeout
	srv.WriteTimeout = set.WriteTimeout
	srv.NoDefaultContentType = true
	srv.CloseOnShutdown = true
	srv.MaxIdleWorkerDuration = httpWorkerIdle
	srv.Logger = fasthttpLogger{set.Logger}
}

// fasthttpLogger passes fasthttp's messages (mostly about connections a
// client broke off) to slog at debug level.
type fasthttpLogger struct{ l *slog.Logger }

func (f fasthttpLogger) Printf(format string, args ...any) {
	if !f.l.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	f.l.Debug(fmt.Sprintf(format, args...), "transport", "http")
}
