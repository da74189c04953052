package kube

import "sort"

// opTable names the operations a run records, one per API request kind
// ("verb resource[/subresource]", as kube-apiserver's request metrics
// label them) and one per background request of kube-apiserver itself.
// Every etcd request is recorded under the API request it served. Immutable
// after newOpTable.
type opTable struct {
	names []string
	index map[string]int
}

// opNames are every operation the engine can send.
func opNames() []string {
	names := []string{
		"create namespaces", "create serviceaccounts", "create serviceaccounts/token", "create nodes", "patch nodes/status", "create leases", "get leases", "update leases",
		"get pods", "create pods", "create pods/binding", "patch pods/status", "delete pods",
		"create deployments", "update deployments/status", "delete deployments",
		"create replicasets", "update replicasets/status", "delete replicasets",
		"create services", "delete services",
		"create endpoints", "update endpoints", "delete endpoints",
		"create endpointslices", "update endpointslices", "delete endpointslices",
		"create events", "patch events", "grant leases (events)",
		"get health", "compact", "count",
	}
	for _, r := range allResources() {
		if r.watched() {
			names = append(names, "list "+r.name())
		}
	}
	sort.Strings(names)
	return names
}

func newOpTable() *opTable {
	t := &opTable{names: opNames(), index: map[string]int{}}
	for i, n := range t.names {
		t.index[n] = i
	}
	return t
}

// id returns an operation's index, or -1 for a name not in the table (a
// bug: the store counts them and the tests fail on any).
func (t *opTable) id(name string) int {
	if i, ok := t.index[name]; ok {
		return i
	}
	return -1
}
