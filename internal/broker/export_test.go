package broker

// ClusterID exposes clusterID to the external tests.
var ClusterID = clusterID
