package kubereal

import (
	"fmt"
	"strings"
)

// The manifest's pods, as load/kube's emulated ones (objects.go): one
// container with the same image, port and requests.
const (
	realImage = "registry.k8s.io/nginx-slim:0.27"
)

// kubeManifest is bench kube's manifest as one multi-document YAML, what
// the field report applied with kubectl: per app a Deployment of replicas
// pods and, with services, a Service selecting them. Names are load/kube's
// (app-000, ...).
func kubeManifest(deployments, replicas int, services bool) []byte {
	var b strings.Builder
	for i := range deployments {
		name := fmt.Sprintf("app-%03d", i)
		fmt.Fprintf(&b, `---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: %[1]s
  labels: {app: %[1]s}
spec:
  replicas: %[2]d
  selector:
    matchLabels: {app: %[1]s}
  template:
    metadata:
      labels: {app: %[1]s}
    spec:
      containers:
      - name: app
        image: %[3]s
        ports: [{containerPort: 80}]
        resources: {requests: {cpu: 10m, memory: 16Mi}}
`, name, replicas, realImage)
		if services {
			fmt.Fprintf(&b, `---
apiVersion: v1
kind: Service
metadata:
  name: %[1]s
  labels: {app: %[1]s}
spec:
  selector: {app: %[1]s}
  ports: [{port: 80, targetPort: 80, protocol: TCP}]
`, name)
		}
	}
	return []byte(b.String())
}
