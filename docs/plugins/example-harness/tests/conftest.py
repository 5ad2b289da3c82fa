pytest_plugins = ["cargento.testing.fixtures"]
