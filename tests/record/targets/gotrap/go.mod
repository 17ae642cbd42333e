module gotrap

go 1.19
