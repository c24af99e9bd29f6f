package kubernetes

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// What the manifests have to agree with: the server's behaviour and sizing.
const (
	appName = "reconcile-demo"
	// natsName is NATS's StatefulSet and Service (nats.yaml): rooms across
	// replicas.
	natsName = "nats"

	// After SIGTERM the server fails /readyz, closes its WebSockets with 1012
	// and exits within this long.
	serverDrain = 10 * time.Second

	// Memory a session holds, and what the Go runtime, buffers and GC need on
	// top of the sessions; the memory limit must cover MAX_SESSIONS of them.
	bytesPerSession = 48 << 10
	runtimeHeadroom = 128 << 20

	// The server's built-in MAX_SESSIONS when the env does not set it.
	defaultMaxSessions = 10000

	// Readiness must drop a draining pod from the endpoints within this long.
	maxReadinessPeriod = 5
)

// manifests is every object found in the folder's *.yaml files.
type manifests struct {
	files []string // the *.yaml file names, sorted

	deployments []*appsv1.Deployment
	services    []*corev1.Service // the demo's (named appName)
	natsSets    []*appsv1.StatefulSet
	natsSvcs    []*corev1.Service
	pdbs        []*policyv1.PodDisruptionBudget
	hpas        []*autoscalingv2.HorizontalPodAutoscaler
	kusts       []*kustomization
}

// kustomization is the part of kustomize.config.k8s.io/v1beta1 Kustomization
// these manifests use; any other field fails the strict decode.
type kustomization struct {
	metav1.TypeMeta `json:",inline"`
	Resources       []string `json:"resources"`
}

// docSeparator matches a YAML document separator line.
var docSeparator = regexp.MustCompile(`(?m)^---[ \t]*(#.*)?$`)

// splitDocuments splits a multi-document YAML file on its `---` lines,
// dropping documents that hold only comments or whitespace.
func splitDocuments(data []byte) ([][]byte, error) {
	var docs [][]byte
	for _, doc := range docSeparator.Split(string(data), -1) {
		j, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			return nil, err
		}
		if string(bytes.TrimSpace(j)) == "null" {
			continue
		}
		docs = append(docs, []byte(doc))
	}
	return docs, nil
}

// strictUnmarshal decodes one YAML document into out the way the API server
// does with strict field validation: duplicate keys, unknown fields and
// fields whose case differs from the API's are errors (encoding/json alone
// would accept "readonlyRootFilesystem" for readOnlyRootFilesystem).
func strictUnmarshal(doc []byte, out any) error {
	j, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return err
	}
	strictErrs, err := kjson.UnmarshalStrict(j, out, kjson.DisallowDuplicateFields, kjson.DisallowUnknownFields)
	if err != nil {
		return err
	}
	return errors.Join(strictErrs...)
}

// decode decodes one document strictly into the API type that its apiVersion
// and kind name, and fails on any other apiVersion and kind.
func decode(doc []byte) (any, error) {
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		return nil, err
	}
	var obj any
	switch tm.APIVersion + "/" + tm.Kind {
	case "apps/v1/Deployment":
		obj = &appsv1.Deployment{}
	case "apps/v1/StatefulSet":
		obj = &appsv1.StatefulSet{}
	case "v1/Service":
		obj = &corev1.Service{}
	case "policy/v1/PodDisruptionBudget":
		obj = &policyv1.PodDisruptionBudget{}
	case "autoscaling/v2/HorizontalPodAutoscaler":
		obj = &autoscalingv2.HorizontalPodAutoscaler{}
	case "kustomize.config.k8s.io/v1beta1/Kustomization":
		obj = &kustomization{}
	default:
		return nil, fmt.Errorf("unexpected apiVersion %q kind %q", tm.APIVersion, tm.Kind)
	}
	if err := strictUnmarshal(doc, obj); err != nil {
		return nil, fmt.Errorf("%s %s: %w", tm.APIVersion, tm.Kind, err)
	}
	return obj, nil
}

// load reads and strictly decodes every *.yaml file in dir.
func load(t *testing.T, dir string) *manifests {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no *.yaml files in %s", dir)
	}
	m := &manifests{}
	for _, path := range files {
		name := filepath.Base(path)
		m.files = append(m.files, name)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		docs, err := splitDocuments(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(docs) == 0 {
			t.Errorf("%s: no YAML document", name)
		}
		for i, doc := range docs {
			obj, err := decode(doc)
			if err != nil {
				t.Errorf("%s, document %d: %v", name, i+1, err)
				continue
			}
			switch o := obj.(type) {
			case *appsv1.Deployment:
				m.deployments = append(m.deployments, o)
			case *corev1.Service:
				if o.Name == natsName {
					m.natsSvcs = append(m.natsSvcs, o)
				} else {
					m.services = append(m.services, o)
				}
			case *appsv1.StatefulSet:
				m.natsSets = append(m.natsSets, o)
			case *policyv1.PodDisruptionBudget:
				m.pdbs = append(m.pdbs, o)
			case *autoscalingv2.HorizontalPodAutoscaler:
				m.hpas = append(m.hpas, o)
			case *kustomization:
				if name != "kustomization.yaml" {
					t.Errorf("%s: a Kustomization belongs in kustomization.yaml", name)
				}
				m.kusts = append(m.kusts, o)
			}
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	for _, c := range []struct {
		kind string
		n    int
	}{
		{"Deployment", len(m.deployments)},
		{"Service", len(m.services)},
		{"PodDisruptionBudget", len(m.pdbs)},
		{"HorizontalPodAutoscaler", len(m.hpas)},
		{"Kustomization", len(m.kusts)},
		{"NATS StatefulSet", len(m.natsSets)},
		{"NATS Service", len(m.natsSvcs)},
	} {
		if c.n != 1 {
			t.Errorf("found %d %s objects, want exactly 1", c.n, c.kind)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	return m
}

func (m *manifests) deployment() *appsv1.Deployment { return m.deployments[0] }

// container is the Deployment's one container.
func (m *manifests) container(t *testing.T) *corev1.Container {
	t.Helper()
	cs := m.deployment().Spec.Template.Spec.Containers
	if len(cs) != 1 {
		t.Fatalf("Deployment has %d containers, want 1", len(cs))
	}
	return &cs[0]
}

// containerPort resolves a port given by name or number to the container's
// port number; ok is false if the container declares no such port.
func containerPort(c *corev1.Container, p intstr.IntOrString) (port int32, ok bool) {
	for _, cp := range c.Ports {
		if p.Type == intstr.String && cp.Name == p.StrVal ||
			p.Type == intstr.Int && cp.ContainerPort == p.IntVal {
			return cp.ContainerPort, true
		}
	}
	return 0, false
}

// env returns the container's literal value for an environment variable.
func env(t *testing.T, c *corev1.Container, name string) (value string, ok bool) {
	t.Helper()
	for _, e := range c.Env {
		if e.Name == name {
			if e.ValueFrom != nil {
				t.Errorf("env %s: want a literal value, not valueFrom", name)
			}
			return e.Value, true
		}
	}
	return "", false
}

func TestDecodeRejects(t *testing.T) {
	// The strict decoding the other tests rely on.
	tests := []struct {
		name string
		doc  string
	}{
		{"unknown kind", "apiVersion: v1\nkind: Secret\nmetadata: {name: x}\n"},
		{"wrong apiVersion", "apiVersion: apps/v1beta1\nkind: Deployment\nmetadata: {name: x}\n"},
		{"unknown field", "apiVersion: v1\nkind: Service\nmetadata: {name: x}\nspec: {sessionAffinty: None}\n"},
		{"miscased field", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec: {Replicas: 2}\n"},
		{"duplicate key", "apiVersion: v1\nkind: Service\nmetadata: {name: x}\nspec: {type: ClusterIP, type: NodePort}\n"},
		{"wrong value type", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec: {replicas: two}\n"},
		{"unknown kustomization field", "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nbases: [a.yaml]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj, err := decode([]byte(tt.doc))
			if err == nil {
				t.Fatalf("decode accepted it: %+v", obj)
			}
			t.Logf("rejected: %v", err)
		})
	}
}

func TestSplitDocuments(t *testing.T) {
	in := "# header\n---\na: 1\n--- # second\nb: 2\n---\n# only a comment\n---\n"
	docs, err := splitDocuments([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 {
		t.Fatalf("got %d documents, want 2: %q", len(docs), docs)
	}
}

func TestNamesAndLabels(t *testing.T) {
	m := load(t, ".")
	objs := []struct {
		kind string
		meta metav1.ObjectMeta
	}{
		{"Deployment", m.deployment().ObjectMeta},
		{"Service", m.services[0].ObjectMeta},
		{"PodDisruptionBudget", m.pdbs[0].ObjectMeta},
		{"HorizontalPodAutoscaler", m.hpas[0].ObjectMeta},
	}
	for _, o := range objs {
		if o.meta.Name != appName {
			t.Errorf("%s name = %q, want %q", o.kind, o.meta.Name, appName)
		}
		if got := o.meta.Labels["app.kubernetes.io/name"]; got != appName {
			t.Errorf("%s label app.kubernetes.io/name = %q, want %q", o.kind, got, appName)
		}
		if o.meta.Namespace != "" {
			t.Errorf("%s sets namespace %q; leave it to kubectl -n or the kustomization", o.kind, o.meta.Namespace)
		}
	}
	if got := m.deployment().Spec.Template.Labels["app.kubernetes.io/name"]; got != appName {
		t.Errorf("pod template label app.kubernetes.io/name = %q, want %q", got, appName)
	}
}

func TestSelectorsMatchPods(t *testing.T) {
	m := load(t, ".")
	d := m.deployment()
	podLabels := labels.Set(d.Spec.Template.Labels)

	selectors := []struct {
		name string
		sel  *metav1.LabelSelector
	}{
		{"Deployment selector", d.Spec.Selector},
		{"PodDisruptionBudget selector", m.pdbs[0].Spec.Selector},
	}
	for _, tsc := range d.Spec.Template.Spec.TopologySpreadConstraints {
		selectors = append(selectors, struct {
			name string
			sel  *metav1.LabelSelector
		}{"topologySpreadConstraints " + tsc.TopologyKey, tsc.LabelSelector})
	}
	for _, s := range selectors {
		t.Run(s.name, func(t *testing.T) {
			if s.sel == nil || len(s.sel.MatchLabels)+len(s.sel.MatchExpressions) == 0 {
				t.Fatal("empty selector: it would select every pod")
			}
			sel, err := metav1.LabelSelectorAsSelector(s.sel)
			if err != nil {
				t.Fatal(err)
			}
			if !sel.Matches(podLabels) {
				t.Errorf("selector %s does not match the pod template labels %v", sel, podLabels)
			}
		})
	}

	t.Run("Service selector", func(t *testing.T) {
		svcSel := m.services[0].Spec.Selector
		if len(svcSel) == 0 {
			t.Fatal("Service has no selector")
		}
		if !labels.SelectorFromSet(svcSel).Matches(podLabels) {
			t.Errorf("Service selector %v does not match the pod template labels %v", svcSel, podLabels)
		}
	})
}

func TestService(t *testing.T) {
	m := load(t, ".")
	svc := m.services[0]
	c := m.container(t)

	if svc.Spec.Type != "" && svc.Spec.Type != corev1.ServiceTypeClusterIP {
		t.Errorf("Service type = %q, want ClusterIP", svc.Spec.Type)
	}
	// Sessions are resent by the browser on reconnect: no stickiness.
	if a := svc.Spec.SessionAffinity; a != "" && a != corev1.ServiceAffinityNone {
		t.Errorf("Service sessionAffinity = %q, want none", a)
	}
	if svc.Spec.SessionAffinityConfig != nil {
		t.Error("Service sets sessionAffinityConfig, want none")
	}
	if len(svc.Spec.Ports) != 1 {
		t.Fatalf("Service has %d ports, want 1", len(svc.Spec.Ports))
	}
	p := svc.Spec.Ports[0]
	if p.Port != 80 {
		t.Errorf("Service port = %d, want 80", p.Port)
	}
	if p.TargetPort.Type != intstr.String {
		t.Errorf("Service targetPort = %s, want a port name so it follows the container", p.TargetPort.String())
	}
	if _, ok := containerPort(c, p.TargetPort); !ok {
		t.Errorf("Service targetPort %s names no port of container %q", p.TargetPort.String(), c.Name)
	}
}

func TestContainerPortAndEnv(t *testing.T) {
	m := load(t, ".")
	c := m.container(t)

	http, ok := containerPort(c, intstr.FromString("http"))
	if !ok {
		t.Fatalf("container %q has no port named http", c.Name)
	}
	names := map[string]bool{}
	for _, e := range c.Env {
		if names[e.Name] {
			t.Errorf("env %s set twice", e.Name)
		}
		names[e.Name] = true
	}

	t.Run("ADDR", func(t *testing.T) {
		addr, ok := env(t, c, "ADDR")
		if !ok {
			t.Fatal("ADDR not set")
		}
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			t.Fatalf("ADDR %q: %v", addr, err)
		}
		if host != "" {
			t.Errorf("ADDR %q listens on %q only; want all interfaces (\":%d\")", addr, host, http)
		}
		if port != strconv.Itoa(int(http)) {
			t.Errorf("ADDR port %s != container port http %d", port, http)
		}
	})
	t.Run("LOG_FORMAT", func(t *testing.T) {
		if v, _ := env(t, c, "LOG_FORMAT"); v != "json" {
			t.Errorf("LOG_FORMAT = %q, want json", v)
		}
	})
	t.Run("MAX_SESSIONS", func(t *testing.T) {
		v, ok := env(t, c, "MAX_SESSIONS")
		if !ok {
			t.Fatal("MAX_SESSIONS not set")
		}
		if n, err := strconv.Atoi(v); err != nil || n <= 0 {
			t.Errorf("MAX_SESSIONS = %q, want a positive integer", v)
		}
	})
	t.Run("SESSION_TTL", func(t *testing.T) {
		v, ok := env(t, c, "SESSION_TTL")
		if !ok {
			t.Fatal("SESSION_TTL not set")
		}
		if d, err := time.ParseDuration(v); err != nil || d <= 0 {
			t.Errorf("SESSION_TTL = %q, want a positive Go duration", v)
		}
	})
	t.Run("MAX_SESSIONS_PER_ADDR", func(t *testing.T) {
		if v, ok := env(t, c, "MAX_SESSIONS_PER_ADDR"); ok {
			if n, err := strconv.Atoi(v); err != nil || n <= 0 {
				t.Errorf("MAX_SESSIONS_PER_ADDR = %q, want a positive integer", v)
			}
		}
	})
}

func TestProbes(t *testing.T) {
	m := load(t, ".")
	c := m.container(t)
	http, _ := containerPort(c, intstr.FromString("http"))

	tests := []struct {
		name     string
		probe    *corev1.Probe
		optional bool
		path     string
	}{
		{"livenessProbe", c.LivenessProbe, false, "/healthz"},
		{"readinessProbe", c.ReadinessProbe, false, "/readyz"},
		// Startup must not wait on /readyz: a pod that is full would be
		// killed for it.
		{"startupProbe", c.StartupProbe, true, "/healthz"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.probe == nil {
				if !tt.optional {
					t.Fatal("missing")
				}
				return
			}
			g := tt.probe.HTTPGet
			if g == nil {
				t.Fatal("not an httpGet probe")
			}
			if g.Path != tt.path {
				t.Errorf("path = %q, want %q", g.Path, tt.path)
			}
			port, ok := containerPort(c, g.Port)
			if !ok {
				t.Errorf("port %s is not a port of the container", g.Port.String())
			} else if port != http {
				t.Errorf("port %s = %d, want the http port %d", g.Port.String(), port, http)
			}
		})
	}

	t.Run("readiness drops a draining pod fast", func(t *testing.T) {
		r := c.ReadinessProbe
		if r == nil {
			t.Fatal("no readinessProbe")
		}
		if r.FailureThreshold != 1 {
			t.Errorf("readinessProbe failureThreshold = %d, want 1", r.FailureThreshold)
		}
		if r.PeriodSeconds == 0 || r.PeriodSeconds > maxReadinessPeriod {
			t.Errorf("readinessProbe periodSeconds = %d, want 1..%d", r.PeriodSeconds, maxReadinessPeriod)
		}
	})
}

func TestResources(t *testing.T) {
	m := load(t, ".")
	c := m.container(t)
	req, lim := c.Resources.Requests, c.Resources.Limits

	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if q, ok := req[name]; !ok || q.Sign() <= 0 {
			t.Errorf("requests.%s not set", name)
		}
	}
	memLimit, ok := lim[corev1.ResourceMemory]
	if !ok {
		t.Fatal("limits.memory not set")
	}
	if memReq := req[corev1.ResourceMemory]; memLimit.Cmp(memReq) < 0 {
		t.Errorf("limits.memory %s < requests.memory %s", memLimit.String(), memReq.String())
	}

	maxSessions := defaultMaxSessions
	if v, ok := env(t, c, "MAX_SESSIONS"); ok {
		if n, err := strconv.Atoi(v); err == nil {
			maxSessions = n
		}
	}
	need := int64(maxSessions)*bytesPerSession + runtimeHeadroom
	if memLimit.Value() < need {
		t.Errorf("limits.memory %s < %d sessions x %d KiB + %d MiB runtime = %d MiB",
			memLimit.String(), maxSessions, bytesPerSession>>10, runtimeHeadroom>>20, need>>20)
	}

	if v, ok := env(t, c, "GOMEMLIMIT"); ok {
		q, err := resource.ParseQuantity(strings.TrimSuffix(v, "B"))
		if err != nil {
			t.Fatalf("GOMEMLIMIT %q: %v", v, err)
		}
		if q.Cmp(memLimit) >= 0 {
			t.Errorf("GOMEMLIMIT %s must stay under limits.memory %s", v, memLimit.String())
		}
		if q.Value() < need {
			t.Errorf("GOMEMLIMIT %s < the %d MiB the sessions need", v, need>>20)
		}
	}
}

func TestSecurityContext(t *testing.T) {
	m := load(t, ".")
	pod := m.deployment().Spec.Template.Spec.SecurityContext
	if pod == nil {
		pod = &corev1.PodSecurityContext{}
	}
	c := m.container(t)
	sc := c.SecurityContext
	if sc == nil {
		t.Fatal("container has no securityContext")
	}

	// Effective values: the container's setting wins over the pod's.
	runAsNonRoot := firstNonNil(sc.RunAsNonRoot, pod.RunAsNonRoot)
	runAsUser := firstNonNil(sc.RunAsUser, pod.RunAsUser)
	seccomp := firstNonNil(sc.SeccompProfile, pod.SeccompProfile)

	checks := []struct {
		name string
		ok   bool
	}{
		{"runAsNonRoot: true", runAsNonRoot != nil && *runAsNonRoot},
		{"runAsUser: 65532", runAsUser != nil && *runAsUser == 65532},
		{"readOnlyRootFilesystem: true", sc.ReadOnlyRootFilesystem != nil && *sc.ReadOnlyRootFilesystem},
		{"allowPrivilegeEscalation: false", sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation},
		{"not privileged", sc.Privileged == nil || !*sc.Privileged},
		{"capabilities drop ALL", sc.Capabilities != nil && slices.Contains(sc.Capabilities.Drop, "ALL")},
		{"no capabilities added", sc.Capabilities == nil || len(sc.Capabilities.Add) == 0},
		{"seccompProfile RuntimeDefault", seccomp != nil && seccomp.Type == corev1.SeccompProfileTypeRuntimeDefault},
	}
	for _, ch := range checks {
		if !ch.ok {
			t.Errorf("container %q: want %s", c.Name, ch.name)
		}
	}

	// The pod-level settings also cover any container added later: where
	// they are set, they must say the same.
	podChecks := []struct {
		name string
		ok   bool
	}{
		{"runAsNonRoot: true", pod.RunAsNonRoot == nil || *pod.RunAsNonRoot},
		{"runAsUser: 65532", pod.RunAsUser == nil || *pod.RunAsUser == 65532},
		{"seccompProfile RuntimeDefault", pod.SeccompProfile == nil || pod.SeccompProfile.Type == corev1.SeccompProfileTypeRuntimeDefault},
	}
	for _, ch := range podChecks {
		if !ch.ok {
			t.Errorf("pod securityContext: want %s", ch.name)
		}
	}
}

// firstNonNil returns the first non-nil pointer.
func firstNonNil[T any](ps ...*T) *T {
	for _, p := range ps {
		if p != nil {
			return p
		}
	}
	return nil
}

func TestShutdown(t *testing.T) {
	m := load(t, ".")
	d := m.deployment()
	c := m.container(t)

	if c.Lifecycle == nil || c.Lifecycle.PreStop == nil || c.Lifecycle.PreStop.Sleep == nil {
		t.Fatal("no lifecycle.preStop.sleep: the endpoint removal would race SIGTERM")
	}
	if ps := c.Lifecycle.PreStop; ps.Exec != nil || ps.HTTPGet != nil || ps.TCPSocket != nil {
		t.Error("preStop has another handler besides sleep (the image has no shell)")
	}
	preStop := time.Duration(c.Lifecycle.PreStop.Sleep.Seconds) * time.Second
	if preStop <= 0 {
		t.Errorf("preStop sleep %v, want > 0", preStop)
	}
	tgps := d.Spec.Template.Spec.TerminationGracePeriodSeconds
	if tgps == nil {
		t.Fatal("terminationGracePeriodSeconds not set")
	}
	grace := time.Duration(*tgps) * time.Second
	if preStop >= grace {
		t.Errorf("preStop sleep %v >= terminationGracePeriodSeconds %v", preStop, grace)
	}
	if grace <= preStop+serverDrain {
		t.Errorf("terminationGracePeriodSeconds %v <= preStop %v + server drain %v: pods would be killed mid-drain",
			grace, preStop, serverDrain)
	}
}

func TestRollout(t *testing.T) {
	m := load(t, ".")
	s := m.deployment().Spec.Strategy
	if s.Type != appsv1.RollingUpdateDeploymentStrategyType || s.RollingUpdate == nil {
		t.Fatalf("strategy = %q, want RollingUpdate with maxUnavailable/maxSurge", s.Type)
	}
	ru := s.RollingUpdate
	if ru.MaxUnavailable == nil || ru.MaxUnavailable.String() != "0" {
		t.Errorf("maxUnavailable = %v, want 0", ru.MaxUnavailable)
	}
	if ru.MaxSurge == nil || ru.MaxSurge.Type != intstr.Int || ru.MaxSurge.IntVal < 1 {
		t.Errorf("maxSurge = %v, want at least 1 (else a rollout with maxUnavailable 0 cannot progress)", ru.MaxSurge)
	}
}

func TestPrometheusAnnotations(t *testing.T) {
	m := load(t, ".")
	a := m.deployment().Spec.Template.Annotations
	c := m.container(t)
	http, _ := containerPort(c, intstr.FromString("http"))

	want := map[string]string{
		"prometheus.io/scrape": "true",
		"prometheus.io/port":   strconv.Itoa(int(http)),
		"prometheus.io/path":   "/metrics",
	}
	for k, v := range want {
		if a[k] != v {
			t.Errorf("pod annotation %s = %q, want %q", k, a[k], v)
		}
	}
}

func TestAutoscalingAndDisruption(t *testing.T) {
	m := load(t, ".")
	d := m.deployment()
	hpa := m.hpas[0]
	pdb := m.pdbs[0]

	ref := hpa.Spec.ScaleTargetRef
	if ref.APIVersion != "apps/v1" || ref.Kind != "Deployment" || ref.Name != d.Name {
		t.Errorf("HPA scaleTargetRef = %s %s %q, want apps/v1 Deployment %q", ref.APIVersion, ref.Kind, ref.Name, d.Name)
	}

	if hpa.Spec.MinReplicas == nil {
		t.Fatal("HPA minReplicas not set (defaults to 1)")
	}
	lo, hi := *hpa.Spec.MinReplicas, hpa.Spec.MaxReplicas
	if lo > hi {
		t.Errorf("HPA minReplicas %d > maxReplicas %d", lo, hi)
	}

	minAvail := pdb.Spec.MinAvailable
	if minAvail == nil || minAvail.Type != intstr.Int {
		t.Fatalf("PDB minAvailable = %v, want a pod count", minAvail)
	}
	if pdb.Spec.MaxUnavailable != nil {
		t.Error("PDB sets both minAvailable and maxUnavailable")
	}
	if lo < minAvail.IntVal+1 {
		t.Errorf("HPA minReplicas %d < PDB minAvailable %d + 1: a drain could never evict a pod", lo, minAvail.IntVal)
	}

	if r := d.Spec.Replicas; r == nil || *r < lo || *r > hi {
		got := "unset"
		if r != nil {
			got = strconv.Itoa(int(*r))
		}
		t.Errorf("Deployment replicas %s outside the HPA range %d..%d", got, lo, hi)
	}

	var cpu bool
	for _, mt := range hpa.Spec.Metrics {
		if mt.Type != autoscalingv2.ResourceMetricSourceType || mt.Resource == nil {
			continue
		}
		tgt := mt.Resource.Target
		if tgt.Type != autoscalingv2.UtilizationMetricType || tgt.AverageUtilization == nil ||
			*tgt.AverageUtilization <= 0 || *tgt.AverageUtilization > 100 {
			t.Errorf("HPA %s target = %+v, want Utilization in 1..100%%", mt.Resource.Name, tgt)
		}
		// Utilization is relative to the request, so every container needs one.
		for _, c := range d.Spec.Template.Spec.Containers {
			if _, ok := c.Resources.Requests[mt.Resource.Name]; !ok {
				t.Errorf("HPA scales on %s utilization but container %q requests no %s", mt.Resource.Name, c.Name, mt.Resource.Name)
			}
		}
		if mt.Resource.Name == corev1.ResourceCPU {
			cpu = true
		}
	}
	if !cpu {
		t.Error("HPA has no CPU utilization metric")
	}

	b := hpa.Spec.Behavior
	if b == nil || b.ScaleDown == nil || b.ScaleDown.StabilizationWindowSeconds == nil ||
		*b.ScaleDown.StabilizationWindowSeconds <= 0 {
		t.Error("HPA behavior.scaleDown.stabilizationWindowSeconds not set: scaling down drops in-memory sessions")
	}
}

func TestKustomizationListsEveryFile(t *testing.T) {
	m := load(t, ".")
	k := m.kusts[0]

	var want []string
	for _, f := range m.files {
		if f != "kustomization.yaml" {
			want = append(want, f)
		}
	}
	got := slices.Clone(k.Resources)
	slices.Sort(got)
	if dup := slices.Compact(slices.Clone(got)); len(dup) != len(got) {
		t.Errorf("kustomization resources list a file twice: %v", k.Resources)
	}
	got = slices.Compact(got)
	if !slices.Equal(got, want) {
		t.Errorf("kustomization resources = %v, want exactly the other *.yaml files %v", k.Resources, want)
	}
}

// TestNATS: the NATS server the demo's replicas share for rooms is there,
// its Service reaches its client port, and the demo's NATS_URL names that
// Service and port.
func TestNATS(t *testing.T) {
	m := load(t, ".")
	ss, svc := m.natsSets[0], m.natsSvcs[0]
	if ss.Name != natsName || ss.Spec.ServiceName != natsName {
		t.Errorf("NATS StatefulSet %q with serviceName %q, want %q", ss.Name, ss.Spec.ServiceName, natsName)
	}
	if ss.Spec.Replicas == nil || *ss.Spec.Replicas != 1 {
		t.Error("NATS runs as one server: rooms are live frames, with nothing to cluster or keep")
	}
	if len(ss.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("NATS has %d containers, want 1", len(ss.Spec.Template.Spec.Containers))
	}
	c := &ss.Spec.Template.Spec.Containers[0]
	if !strings.HasPrefix(c.Image, "nats:") {
		t.Errorf("NATS image %q, want the official nats image", c.Image)
	}
	podLabels := labels.Set(ss.Spec.Template.Labels)
	sel, err := metav1.LabelSelectorAsSelector(ss.Spec.Selector)
	if err != nil || !sel.Matches(podLabels) {
		t.Errorf("NATS StatefulSet selector does not match its pods")
	}
	if !labels.SelectorFromSet(svc.Spec.Selector).Matches(podLabels) {
		t.Errorf("NATS Service selector %v does not match its pods %v", svc.Spec.Selector, podLabels)
	}
	if labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(m.deployment().Spec.Template.Labels)) {
		t.Error("NATS Service selects the demo's pods")
	}
	if len(svc.Spec.Ports) != 1 {
		t.Fatalf("NATS Service has %d ports, want 1", len(svc.Spec.Ports))
	}
	port, ok := containerPort(c, svc.Spec.Ports[0].TargetPort)
	if !ok {
		t.Fatalf("NATS Service targetPort %s names no container port", svc.Spec.Ports[0].TargetPort.String())
	}
	if svc.Spec.Ports[0].Port != port {
		t.Errorf("NATS Service port %d, container port %d: clients dial the one NATS listens on", svc.Spec.Ports[0].Port, port)
	}
	if c.ReadinessProbe == nil || c.LivenessProbe == nil {
		t.Error("NATS has no readiness or liveness probe")
	}
	if sc := c.SecurityContext; sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
		sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		t.Error("NATS container is not read-only and unprivileged")
	}
	if c.Resources.Limits.Memory().IsZero() {
		t.Error("NATS has no memory limit")
	}

	v, ok := env(t, m.container(t), "NATS_URL")
	if !ok {
		t.Fatal("the demo has no NATS_URL: with several replicas, a student on another pod could not follow a room")
	}
	want := fmt.Sprintf("nats://%s:%d", svc.Name, svc.Spec.Ports[0].Port)
	if v != want {
		t.Errorf("NATS_URL = %q, want %q (the NATS Service)", v, want)
	}
}
