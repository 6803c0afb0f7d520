// Package kubernetes holds hopbench's Kubernetes manifests; its tests decode
// them strictly.
package kubernetes
