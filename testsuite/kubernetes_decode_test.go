package testsuite

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/planmode/planmode/internal/devserver"
)

// Decoding deploy/kubernetes: every document strictly into the Kubernetes
// API's own types (k8s.io/api), as the API server decodes it, so that a
// misspelt or misplaced field fails the tests instead of being dropped.

const kubeDir = "deploy/kubernetes"

// kubeSecretsExample shows the Secrets; it is not applied with the rest.
const kubeSecretsExample = "secrets.example.yaml"

// scaledObject is the part of KEDA's ScaledObject (keda.sh/v1alpha1) the
// manifests use; KEDA's own module is too heavy to import for it.
type scaledObject struct {
	metav1.TypeMeta `json:",inline"`
	Metadata        metav1.ObjectMeta `json:"metadata"`
	Spec            struct {
		ScaleTargetRef struct {
			Name string `json:"name"`
		} `json:"scaleTargetRef"`
		MinReplicaCount int32 `json:"minReplicaCount"`
		MaxReplicaCount int32 `json:"maxReplicaCount"`
		PollingInterval int32 `json:"pollingInterval"`
		CooldownPeriod  int32 `json:"cooldownPeriod"`
		Triggers        []struct {
			Type     string                  `json:"type"`
			Metadata temporalTriggerMetadata `json:"metadata"`
		} `json:"triggers"`
	} `json:"spec"`
}

// temporalTriggerMetadata holds the settings of KEDA's temporal scaler
// the manifests use (https://keda.sh/docs/latest/scalers/temporal/).
type temporalTriggerMetadata struct {
	EndpointFromEnv string `json:"endpointFromEnv"`
	Namespace       string `json:"namespace"`
	TaskQueue       string `json:"taskQueue"`
	QueueTypes      string `json:"queueTypes"`
	TargetQueueSize string `json:"targetQueueSize"`
}

// kustomization is the part of kustomize's Kustomization the manifests use.
type kustomization struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Namespace  string   `json:"namespace"`
	Resources  []string `json:"resources"`
	Labels     []struct {
		Pairs map[string]string `json:"pairs"`
	} `json:"labels"`
	Images []struct {
		Name    string `json:"name"`
		NewName string `json:"newName"`
		NewTag  string `json:"newTag"`
	} `json:"images"`
}

// kubeKinds makes the object a document of each apiVersion and kind
// decodes into.
var kubeKinds = map[string]func() any{
	"v1/Namespace":                  func() any { return new(corev1.Namespace) },
	"v1/ServiceAccount":             func() any { return new(corev1.ServiceAccount) },
	"v1/ConfigMap":                  func() any { return new(corev1.ConfigMap) },
	"v1/Secret":                     func() any { return new(corev1.Secret) },
	"v1/Service":                    func() any { return new(corev1.Service) },
	"apps/v1/Deployment":            func() any { return new(appsv1.Deployment) },
	"policy/v1/PodDisruptionBudget": func() any { return new(policyv1.PodDisruptionBudget) },
	"keda.sh/v1alpha1/ScaledObject": func() any { return new(scaledObject) },
	"kustomize.config.k8s.io/v1beta1/Kustomization": func() any { return new(kustomization) },
}

// decodeKube decodes one YAML document strictly into the type of its
// apiVersion and kind: unknown and duplicate fields are errors.
func decodeKube(doc []byte) (any, error) {
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		return nil, err
	}
	mk, ok := kubeKinds[tm.APIVersion+"/"+tm.Kind]
	if !ok {
		return nil, fmt.Errorf("unexpected kind %s %s", tm.APIVersion, tm.Kind)
	}
	// The API server's own decoding: field names match case-sensitively
	// (encoding/json would take "readinessprobe" for readinessProbe, which
	// the server drops), and unknown or duplicate fields are errors.
	j, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tm.Kind, err)
	}
	obj := mk()
	strict, err := kjson.UnmarshalStrict(j, obj, kjson.DisallowDuplicateFields, kjson.DisallowUnknownFields)
	if err == nil {
		err = errors.Join(strict...)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tm.Kind, err)
	}
	return obj, nil
}

// yamlDocs splits a file into its documents, leaving out empty ones (a
// leading comment block).
var docSeparator = regexp.MustCompile(`(?m)^---[ \t]*$`)

func yamlDocs(b []byte) [][]byte {
	var out [][]byte
	for _, d := range docSeparator.Split(string(b), -1) {
		var v any
		if yaml.Unmarshal([]byte(d), &v) == nil && v != nil {
			out = append(out, []byte(d))
		}
	}
	return out
}

// kubeManifests are the decoded files of deploy/kubernetes, by file name.
type kubeManifests map[string][]any

func loadKube(t *testing.T) kubeManifests {
	t.Helper()
	root, err := devserver.RepoRoot()
	require.NoError(t, err)
	files, err := filepath.Glob(filepath.Join(root, kubeDir, "*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	m := kubeManifests{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		docs := yamlDocs(b)
		require.NotEmpty(t, docs, "%s holds no document", f)
		for i, d := range docs {
			obj, err := decodeKube(d)
			require.NoError(t, err, "%s, document %d", filepath.Base(f), i+1)
			m[filepath.Base(f)] = append(m[filepath.Base(f)], obj)
		}
	}
	return m
}

// kubeAll returns every object of type T in the files applied (all but
// the Secrets' example).
func kubeAll[T any](m kubeManifests) []*T {
	var out []*T
	for file, objs := range m {
		if file == kubeSecretsExample {
			continue
		}
		for _, o := range objs {
			if v, ok := o.(*T); ok {
				out = append(out, v)
			}
		}
	}
	return out
}

// kubeOne returns the one object of type T.
func kubeOne[T any](t *testing.T, m kubeManifests) *T {
	t.Helper()
	all := kubeAll[T](m)
	require.Len(t, all, 1, "one %T", *new(T))
	return all[0]
}

func TestKubernetesStrictDecodingRefusesTypos(t *testing.T) {
	tests := []struct {
		name, doc, wantErr string
	}{
		{"valid", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {A: b}\n", ""},
		{"unknown field", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndatas: {A: b}\n", `unknown field "datas"`},
		{"misplaced field", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\nspec:\n  template:\n    spec:\n" +
			"      containers:\n        - name: w\n          readinessProbe: {httpGet: {path: /readyz, port: 9090}}\n" +
			"      readOnlyRootFilesystem: true\n", `unknown field "spec.template.spec.readOnlyRootFilesystem"`},
		{"field name in the wrong case", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\nspec:\n  template:\n" +
			"    spec:\n      containers:\n        - name: w\n          readinessprobe: {httpGet: {path: /readyz, port: 9090}}\n",
			`unknown field "spec.template.spec.containers[0].readinessprobe"`},
		{"wrong type", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\nspec: {replicas: two}\n", "replicas"},
		{"duplicate field", "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: a}\nautomountServiceAccountToken: false\n" +
			"automountServiceAccountToken: true\n", "already set"},
		{"KEDA typo", "apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata: {name: a}\nspec:\n  triggers:\n" +
			"    - type: temporal\n      metadata: {taskqueue: planmode}\n", `unknown field "spec.triggers[0].metadata.taskqueue"`},
		{"unknown kind", "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: a}\n", "unexpected kind"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeKube([]byte(tt.doc))
			if tt.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tt.wantErr)
		})
	}
}
