package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"go.yaml.in/yaml/v3"
)

// TestDeployKubernetes checks deploy/kubernetes.yaml against the CLI: the
// container's args parse as jetrpc serve flags, the probes and the scrape
// annotation name the listeners those flags open, and the grace period
// covers preStop, --drain and the shutdown grace.
func TestDeployKubernetes(t *testing.T) {
	b, err := os.ReadFile("../../deploy/kubernetes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	type probe struct {
		HTTPGet struct {
			Path string
			Port string
		} `yaml:"httpGet"`
	}
	var deployment struct {
		Spec struct {
			Template struct {
				Metadata struct{ Annotations map[string]string }
				Spec     struct {
					Grace      int `yaml:"terminationGracePeriodSeconds"`
					Containers []struct {
						Args  []string
						Ports []struct {
							Name string
							Port int `yaml:"containerPort"`
						}
						Readiness probe `yaml:"readinessProbe"`
						Liveness  probe `yaml:"livenessProbe"`
						Lifecycle struct {
							PreStop struct{ Sleep struct{ Seconds int } } `yaml:"preStop"`
						}
					}
				}
			}
		}
	}
	kinds := map[string]int{}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	for {
		var node yaml.Node
		if err := dec.Decode(&node); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		var head struct{ Kind string }
		if err := node.Decode(&head); err != nil {
			t.Fatal(err)
		}
		kinds[head.Kind]++
		if head.Kind == "Deployment" {
			if err := node.Decode(&deployment); err != nil {
				t.Fatal(err)
			}
		}
	}
	if kinds["Deployment"] != 1 || kinds["Service"] != 1 || kinds["PodDisruptionBudget"] != 1 {
		t.Fatalf("documents %v", kinds)
	}
	pod := deployment.Spec.Template
	if len(pod.Spec.Containers) != 1 {
		t.Fatalf("containers: %+v", pod.Spec.Containers)
	}
	c := pod.Spec.Containers[0]
	if len(c.Args) == 0 || c.Args[0] != "serve" {
		t.Fatalf("args %q", c.Args)
	}
	var stderr strings.Builder
	cfg, err := parseServe(c.Args[1:], &stderr)
	if err != nil {
		t.Fatalf("args %q: %v %s", c.Args, err, stderr.String())
	}
	port := func(addr string) int {
		t.Helper()
		_, p, err := net.SplitHostPort(addr)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := net.LookupPort("tcp", p)
		return n
	}
	named := map[string]int{}
	for _, p := range c.Ports {
		named[p.Name] = p.Port
	}
	if named["rpc-tcp"] != port(cfg.tcp) || named["rpc-http"] != port(cfg.http) || named["admin"] != port(cfg.ops.admin) {
		t.Errorf("container ports %v for --tcp %s --http %s --admin %s", named, cfg.tcp, cfg.http, cfg.ops.admin)
	}
	for _, p := range []struct {
		name string
		p    probe
		path string
	}{{"readiness", c.Readiness, "/readyz"}, {"liveness", c.Liveness, "/healthz"}} {
		if p.p.HTTPGet.Path != p.path || named[p.p.HTTPGet.Port] != port(cfg.http) {
			t.Errorf("%s probe %+v: want %s on the --http port", p.name, p.p.HTTPGet, p.path)
		}
	}
	a := pod.Metadata.Annotations
	if a["prometheus.io/scrape"] != "true" || a["prometheus.io/path"] != "/metrics" ||
		a["prometheus.io/port"] != strconv.Itoa(port(cfg.ops.admin)) || !cfg.ops.metricsOn() {
		t.Errorf("scrape annotations %v, admin port %d, metrics on %v", a, named["admin"], cfg.ops.metricsOn())
	}
	preStop := time.Duration(c.Lifecycle.PreStop.Sleep.Seconds) * time.Second
	need := preStop + cfg.ops.drain + shutdownGrace
	if preStop == 0 || cfg.ops.drain == 0 || time.Duration(pod.Spec.Grace)*time.Second <= need {
		t.Errorf("terminationGracePeriodSeconds %d: want more than preStop %v + --drain %v + shutdown grace %v",
			pod.Spec.Grace, preStop, cfg.ops.drain, shutdownGrace)
	}
}

// TestDeployGrafana checks that every metric the Grafana dashboard queries
// is one jetrpc serve --admin exports (package metrics and the Go and
// process collectors), histogram series included.
func TestDeployGrafana(t *testing.T) {
	b, err := os.ReadFile("../../deploy/grafana-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		UID    string
		Panels []struct {
			Title   string
			Type    string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatal(err)
	}
	ops := &opsFlags{admin: "127.0.0.1:0", metrics: true, level: slog.LevelInfo}
	obs, err := newObservability(ops, slog.New(slog.DiscardHandler), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	e := dispatch.New(&dispatch.Options{Observer: obs.observer()})
	defer e.Close()
	if err := demo.Register(e); err != nil {
		t.Fatal(err)
	}
	e.Process(nil, []byte(`[{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1},{"jsonrpc":"2.0","method":"nope","id":2}]`))
	mfs, err := obs.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, mf := range mfs {
		n := mf.GetName()
		have[n] = true
		if mf.GetType().String() == "HISTOGRAM" {
			have[n+"_bucket"], have[n+"_sum"], have[n+"_count"] = true, true, true
		}
	}
	name := regexp.MustCompile(`\b(?:jetrpc|go|process)_[a-z_]+\b`)
	queries := 0
	for _, p := range dash.Panels {
		for _, target := range p.Targets {
			queries++
			found := name.FindAllString(target.Expr, -1)
			if len(found) == 0 {
				t.Errorf("panel %q: no metric in %s", p.Title, target.Expr)
			}
			for _, m := range found {
				if !have[m] {
					t.Errorf("panel %q queries %s, which jetrpc serve does not export", p.Title, m)
				}
			}
		}
	}
	if dash.UID == "" || queries < 10 {
		t.Errorf("uid %q, %d queries", dash.UID, queries)
	}
	for _, m := range []string{"jetrpc_calls_total", "jetrpc_call_duration_seconds", "jetrpc_connections_open", "jetrpc_rejections_total"} {
		if !strings.Contains(string(b), m) {
			t.Errorf("the dashboard does not show %s", m)
		}
	}
}
