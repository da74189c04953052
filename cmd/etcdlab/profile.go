package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/internal/atomicfile"
	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/load/replay"
	"github.com/etcdlab/etcdlab/measure/profile"
	"github.com/spf13/cobra"
)

func (a *app) profileCmd() *cobra.Command {
	var (
		o      profile.Options
		output string
		out    string
	)
	c := &cobra.Command{
		Use:   "profile",
		Short: "A live cluster's load shape, read-only, as a profile bench replay plays",
		Long: `Reads a running cluster's load without writing to it (only serializable
ranges, status, the member list, lease lists and metrics): every member's
metrics at both ends of --window give the request rates per operation, the
sizes of writes and reads, the watchers and their fan-out, the leases and
the store's growth; --prometheus adds the load's curve over --since;
--apiserver-metrics splits the requests across Kubernetes resources; the
census counts keys and sizes per prefix and samples the leases.

Writes the profile (YAML, docs/profiles.md) to --out or stdout, and a short
summary to stderr. Replay it with: etcdlab bench replay FILE`,
		Example: `  etcdlab profile --endpoints https://10.0.0.1:2379 --cacert ca.crt --cert c.crt --key c.key --out prod.yaml
  etcdlab profile --endpoints 127.0.0.1:2379 --prometheus http://prometheus:9090 --since 24h --out prod.yaml`,
		Args: noArgs,
		Annotations: map[string]string{"param:URL": "--prometheus", "param:Selector": "--prometheus-selector", "param:Step": "--prometheus-step", "param:Until": "--until",
			"param:RateWindow": "the rate window", "param:Timeout": "the query timeout", "param:PrometheusTokenFile": "--prometheus-token-file",
			"param:APIServerMetrics": "--apiserver-metrics", "param:APIServerCACert": "--apiserver-cacert", "param:APIServerTokenFile": "--apiserver-token-file"},
		RunE: func(c *cobra.Command, _ []string) error {
			if output != "yaml" && output != "json" {
				return invalid.Errorf("-o must be yaml or json, not %q", output)
			}
			if err := positiveIfGiven(c, "window", "census-max-requests", "census-page", "prometheus-step"); err != nil {
				return err
			}
			if err := validateConn(o.Conn); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			o.Log = a.stderr
			p, err := profile.Run(c.Context(), o)
			if err != nil {
				return err
			}
			var b []byte
			if output == "json" {
				b, err = json.MarshalIndent(p, "", "  ")
				b = append(b, '\n')
			} else {
				b, err = replay.Marshal(p)
			}
			if err != nil {
				return err
			}
			summary(a.stderr, p)
			if out == "" {
				_, err = a.stdout.Write(b)
				return err
			}
			if err := atomicfile.WriteBytes(out, b, 0o644); err != nil {
				return err
			}
			fmt.Fprintf(a.stderr, "profile: wrote %s\n", out)
			return nil
		},
	}
	fl := c.Flags()
	fl.SortFlags = false
	addConnFlags(fl, &o.Conn)
	fl.StringSliceVar(&o.MetricsURLs, "metrics-urls", nil, "members' metrics URLs (default: every member's client URL from the member list)")
	fl.DurationVar(&o.Window, "window", profile.DefaultWindow, "how long to watch the members' metrics")
	fl.StringVar(&o.Prometheus.URL, "prometheus", "", "a Prometheus server that scrapes the members: the load's curve over --since")
	fl.DurationVar(&o.Prometheus.Since, "since", 0, "how far back the Prometheus history goes (default 24h; needs --prometheus)")
	fl.Var(rfc3339{&o.Prometheus.Until}, "until", "the end of the Prometheus history, RFC 3339 (default now; needs --prometheus)")
	fl.DurationVar(&o.Prometheus.Step, "prometheus-step", 0, "the history's step (default: at most 1,500 points over --since)")
	fl.StringVar(&o.Prometheus.Selector, "prometheus-selector", "", `label matchers for etcd's series in Prometheus (job="etcd")`)
	fl.StringVar(&o.PrometheusTokenFile, "prometheus-token-file", "", "a file holding a bearer token for Prometheus")
	fl.StringArrayVar(&o.APIServerMetrics, "apiserver-metrics", nil, "a kube-apiserver's metrics URL (repeatable): requests per Kubernetes resource")
	fl.StringVar(&o.APIServerCACert, "apiserver-cacert", "", "CA bundle for the kube-apiservers' metrics")
	fl.StringVar(&o.APIServerTokenFile, "apiserver-token-file", "", "a file holding a bearer token for the kube-apiservers' metrics")
	fl.BoolVar(&o.Census, "census", true, "census of the keyspace and the leases (reads every key once, serializable, within --census-max-requests)")
	fl.IntVar(&o.CensusMaxRequests, "census-max-requests", profile.DefaultCensusMaxRequests, "the census's request budget (pages of keys and lease lookups)")
	fl.Int64Var(&o.CensusPage, "census-page", profile.DefaultCensusPage, "keys per page of the census")
	fl.StringVar(&out, "out", "", "write the profile to this file (atomically) instead of stdout")
	fl.StringVarP(&output, "output", "o", "yaml", "the profile's format: yaml or json")
	return c
}

// summary writes a few lines about p for a person: rates per operation,
// keys, watchers, leases, and what could not be attributed.
func summary(w io.Writer, p *replay.Profile) {
	var ops []string
	for _, o := range p.Operations {
		s := fmt.Sprintf("%s %.3g/s", o.Op, o.Rate)
		if o.Prefix != "" {
			s = fmt.Sprintf("%s %s %.3g/s", o.Op, o.Prefix, o.Rate)
		}
		ops = append(ops, s)
	}
	fmt.Fprintf(w, "profile: %.1f requests/s: %s\n", p.Totals.RequestsPerSecond, strings.Join(ops, ", "))
	if k := p.Keyspace; k != nil {
		fmt.Fprintf(w, "profile: %d keys, %d prefixes, db %d bytes\n", k.Keys, len(k.Prefixes), k.DBSize)
	}
	if wa := p.Watches; wa != nil {
		fmt.Fprintf(w, "profile: %d watchers, %.1f events/s, fan-out %.2f\n", wa.Watchers, wa.EventsPerSecond, wa.FanOut)
	}
	if l := p.Leases; l != nil {
		fmt.Fprintf(w, "profile: %d leases, ttl %s, %.1f keepalives/s\n", l.Count, l.TTL.D(), l.KeepalivesPerSecond)
	}
	for _, u := range p.Unattributed {
		fmt.Fprintln(w, "profile: unattributed: "+u)
	}
}

// rfc3339 is a flag holding a time written as RFC 3339
// ("2026-11-28T09:00:00Z") in *t; empty is the zero time.
type rfc3339 struct{ t *time.Time }

func (v rfc3339) String() string {
	if v.t == nil || v.t.IsZero() {
		return ""
	}
	return v.t.Format(time.RFC3339)
}

func (v rfc3339) Set(s string) error {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return fmt.Errorf("want a time such as 2026-11-28T09:00:00Z, not %q", s)
	}
	*v.t = t
	return nil
}

func (rfc3339) Type() string { return "time" }
