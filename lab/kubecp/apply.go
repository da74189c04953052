package kubecp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// fieldManager names the lab as the owner of what it applies.
const fieldManager = "etcdlab"

// APIError is a request the apiserver refused: which object, the HTTP
// status and the apiserver's message (a validation failure says what is
// wrong).
type APIError struct {
	Object  string // kind/namespace/name, or the path
	Code    int
	Message string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("kubecp: %s: %d %s", e.Object, e.Code, e.Message)
}

// docSep splits multi-document YAML.
var docSep = regexp.MustCompile(`(?m)^---\s*$`)

// Apply creates or updates every object of a multi-document YAML manifest,
// in order, with server-side apply (strict field validation, so an
// unknown or misspelt field is refused, and no dry run: the objects are
// stored). Objects without a namespace go to namespace ("default" when
// empty) if their kind is namespaced. It stops at the first refusal,
// an *APIError.
func (cp *ControlPlane) Apply(ctx context.Context, manifest []byte, namespace string) error {
	return cp.eachObject(ctx, manifest, namespace, func(j []byte, path string) error {
		q := url.Values{"fieldManager": {fieldManager}, "fieldValidation": {"Strict"}, "force": {"true"}}
		return cp.send(ctx, http.MethodPatch, path+"?"+q.Encode(), "application/apply-patch+yaml", j, nil)
	})
}

// KubectlApply creates every object of a manifest as `kubectl apply` does
// with an object that does not exist yet (client-side apply, kubectl's
// default): a GET of the object, answered 404, then a POST to its
// collection with the object, itself recorded in the
// kubectl.kubernetes.io/last-applied-configuration annotation. An object
// that exists is an *APIError (409): this is for new manifests.
func (cp *ControlPlane) KubectlApply(ctx context.Context, manifest []byte, namespace string) error {
	return cp.eachObject(ctx, manifest, namespace, func(j []byte, path string) error {
		err := cp.send(ctx, http.MethodGet, path, "", nil, nil)
		var ae *APIError
		if err == nil {
			return &APIError{Object: path, Code: http.StatusConflict, Message: "already exists"}
		}
		if !errors.As(err, &ae) || ae.Code != http.StatusNotFound {
			return err
		}
		var obj map[string]any
		if err := json.Unmarshal(j, &obj); err != nil {
			return fmt.Errorf("kubecp: manifest: %w", err)
		}
		meta, _ := obj["metadata"].(map[string]any)
		ann, _ := meta["annotations"].(map[string]any)
		if ann == nil {
			ann = map[string]any{}
		}
		ann[lastApplied] = string(j)
		meta["annotations"] = ann
		body, err := json.Marshal(obj)
		if err != nil {
			return fmt.Errorf("kubecp: manifest: %w", err)
		}
		q := url.Values{"fieldManager": {"kubectl-client-side-apply"}, "fieldValidation": {"Strict"}}
		return cp.send(ctx, http.MethodPost, path[:strings.LastIndex(path, "/")]+"?"+q.Encode(), "application/json", body, nil)
	})
}

// lastApplied is kubectl's annotation of the configuration it applied.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// eachObject calls do with each object of a multi-document YAML manifest,
// in order, as JSON with the URL path of the object (namespaced kinds
// under their namespace: the object's, else namespace, else "default").
// It stops at the first error.
func (cp *ControlPlane) eachObject(ctx context.Context, manifest []byte, namespace string, do func(j []byte, path string) error) error {
	if namespace == "" {
		namespace = "default"
	}
	resources := map[string]*metav1.APIResourceList{} // by apiVersion
	for _, doc := range docSep.Split(string(manifest), -1) {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		j, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			return fmt.Errorf("kubecp: manifest: %w", err)
		}
		var obj struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Metadata   struct {
				Name, Namespace string
			} `json:"metadata"`
		}
		if err := json.Unmarshal(j, &obj); err != nil {
			return fmt.Errorf("kubecp: manifest: a document without apiVersion, kind or name (%w)", err)
		}
		if obj.Kind == "" || obj.APIVersion == "" || obj.Metadata.Name == "" {
			return errors.New("kubecp: manifest: a document without apiVersion, kind or name")
		}
		list, ok := resources[obj.APIVersion]
		if !ok {
			if list, err = cp.discover(ctx, obj.APIVersion); err != nil {
				return err
			}
			resources[obj.APIVersion] = list
		}
		path, err := objectPath(list, obj.APIVersion, obj.Kind, obj.Metadata.Namespace, namespace, obj.Metadata.Name)
		if err != nil {
			return err
		}
		if err := do(j, path); err != nil {
			return err
		}
	}
	return nil
}

// Get reads the object or list at path (/api/v1/namespaces/default/pods)
// as the administrator and decodes it into v.
func (cp *ControlPlane) Get(ctx context.Context, path string, v any) error {
	return cp.send(ctx, http.MethodGet, path, "", nil, v)
}

// send sends a request; a non-2xx answer is an *APIError.
func (cp *ControlPlane) send(ctx context.Context, method, path, contentType string, body []byte, into any) error {
	req, err := http.NewRequestWithContext(ctx, method, cp.url+path, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("kubecp: %w", err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := cp.client.Do(req)
	if err != nil {
		return fmt.Errorf("kubecp: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("kubecp: %s %s: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		var st metav1.Status
		msg := strings.TrimSpace(string(b))
		if json.Unmarshal(b, &st) == nil && st.Message != "" {
			msg = st.Message
		}
		return &APIError{Object: strings.SplitN(path, "?", 2)[0], Code: resp.StatusCode, Message: msg}
	}
	if into != nil {
		if err := json.Unmarshal(b, into); err != nil {
			return fmt.Errorf("kubecp: %s %s: %w", method, path, err)
		}
	}
	return nil
}

// discover lists the resources of apiVersion (v1, batch/v1).
func (cp *ControlPlane) discover(ctx context.Context, apiVersion string) (*metav1.APIResourceList, error) {
	var list metav1.APIResourceList
	if err := cp.Get(ctx, groupPath(apiVersion), &list); err != nil {
		return nil, err
	}
	return &list, nil
}

// groupPath is where apiVersion's resources are served.
func groupPath(apiVersion string) string {
	if !strings.Contains(apiVersion, "/") {
		return "/api/" + apiVersion
	}
	return "/apis/" + apiVersion
}

// objectPath is the URL path of an object of kind: namespaced kinds
// under their namespace (ns, else defaultNS).
func objectPath(list *metav1.APIResourceList, apiVersion, kind, ns, defaultNS, name string) (string, error) {
	for _, r := range list.APIResources {
		if r.Kind != kind || strings.Contains(r.Name, "/") {
			continue
		}
		if !r.Namespaced {
			return groupPath(apiVersion) + "/" + r.Name + "/" + name, nil
		}
		if ns == "" {
			ns = defaultNS
		}
		return groupPath(apiVersion) + "/namespaces/" + ns + "/" + r.Name + "/" + name, nil
	}
	return "", &APIError{Object: apiVersion + " " + kind, Code: http.StatusNotFound, Message: "the apiserver serves no such kind"}
}
