// Package kubernetes holds the Kubernetes manifests that run reconcile-demo:
// a Deployment, its ClusterIP Service, a PodDisruptionBudget, a
// HorizontalPodAutoscaler and the kustomization.yaml that lists them
// (kubectl apply -k deploy/kubernetes).
//
// The package has no Go code to import. Its test reads every *.yaml file in
// the folder, decodes each document strictly (duplicate keys, unknown or
// miscased fields and unknown kinds fail) into the Kubernetes API types
// (k8s.io/api), and checks the properties the server depends on: selectors
// that match the pod labels, probes on /healthz and /readyz, a preStop sleep
// and grace period that leave room for the 10 s drain, a non-root read-only
// container, and an autoscaler and disruption budget that agree.
package kubernetes
