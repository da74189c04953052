// Package deploy holds what runs beside etcdlab rather than in it: the
// Grafana dashboard (grafana/), the Prometheus recording and alert rules
// (prometheus/) and Kubernetes manifests (kubernetes/). It has no code;
// its tests parse every PromQL expression with Prometheus' own parser,
// check every metric name against real expositions (an etcd member's,
// etcdlab's) or kube-apiserver's documented names, compare the rules'
// thresholds with package judge's, and load the rules into a real
// Prometheus (docs/metrics.md).
package deploy
