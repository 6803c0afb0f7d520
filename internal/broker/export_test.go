package broker

// ClusterID exposes clusterID to the external tests.
var ClusterID = clusterID

// UsersDir and StartTime expose usersDir and startTime to the external tests.
var (
	UsersDir  = usersDir
	StartTime = startTime
)
