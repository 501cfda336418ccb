package storagetest

import (
	"testing"
)

// The suite, one table per group of scenarios. Each scenario is a named
// function of the file of its concern (brands.go, auth_users.go,
// refdata_cities.go, ...) that opens the fresh stores it needs.

// runBrands runs the brand scenarios of auth.Store.
func runBrands(t *testing.T, newStore NewStore) {
	runScenarios(t, newStore, []scenario{
		{"CreateAndFind", testBrandCreateAndFind},
		{"NotFound", testBrandNotFound},
		{"Conflicts", testBrandConflicts},
		{"Update", testBrandUpdate},
		{"ListInCreationOrder", testBrandListInCreationOrder},
		{"ConcurrentCreates", testBrandConcurrentCreates},
		{"CancelledContext", testBrandCancelledContext},
	})
}

// runRefData runs the refdata.Store scenarios: the default dataset,
// filters, sorting and paging of currencies, countries and cities against
// the reference implementation, upserts and cancellation.
func runRefData(t *testing.T, newStore NewStore) {
	scenarios := []scenario{
		{"DefaultDatasetLoaded", testDefaultDatasetLoaded},
		{"CurrencyFilters", testCurrencyFilters},
		{"CountryFilters", testCountryFilters},
		{"CityFilters", testCityFilters},
		{"SortEveryField", testSortEveryField},
		{"Paging", testPaging},
		{"CitiesAgainstReference", testCitiesAgainstReference},
		{"CityShortNames", testCityShortNames},
		{"KeywordsAnyScript", testKeywordsAnyScript},
		{"UpsertCities", testUpsertCities},
		{"UpsertCurrenciesAndCountries", testUpsertCurrenciesAndCountries},
		{"CancelledContext", testRefDataCancelledContext},
		{"CreatedDateCurrencies", testCreatedDateCurrencies},
		{"CreatedDateCountries", testCreatedDateCountries},
		{"CreatedDateCities", testCreatedDateCities},
		{"ImportKeepsTags", testImportKeepsTags},
		{"RevisionCountsWrites", testRevisionCountsWrites},
		{"ReadRefData", testReadRefData},
		{"ChangesSince", testChangesSince},
		{"ChangesTooManyReadWhole", testChangesTooManyReadWhole},
		{"Generation", testGeneration},
		{"ReadIsOneTransaction", testReadIsOneTransaction},
		{"WritesElsewherePatchTheSnapshot", testWritesElsewherePatchTheSnapshot},
	}
	runScenarios(t, newStore, scenarios)
	t.Run("NoOpWriteAfterAWriteElsewhere", func(t *testing.T) { testNoOpWriteAfterAWriteElsewhere(t, newStore) })
}

// runAuth runs the auth.Store scenarios: users, key pairs and devices.
func runAuth(t *testing.T, newStore NewStore) {
	t.Run("Users", func(t *testing.T) { runUsers(t, newStore) })
	t.Run("KeyPairs", func(t *testing.T) { runKeyPairs(t, newStore) })
	t.Run("Devices", func(t *testing.T) { runDevices(t, newStore) })
	t.Run("Sessions", func(t *testing.T) { runSessions(t, newStore) })
	t.Run("Account", func(t *testing.T) { runAccount(t, newStore) })
	t.Run("Admin", func(t *testing.T) { runAdmin(t, newStore) })
}

// runUsers runs the auth.Store user scenarios.
func runUsers(t *testing.T, newStore NewStore) {
	runScenarios(t, newStore, []scenario{
		{"CreateAndFind", testUserCreateAndFind},
		{"NotFound", testUserNotFound},
		{"Conflicts", testUserConflicts},
		{"OneNamespace", testUserOneNamespace},
		{"UpdateOneNamespace", testUserUpdateOneNamespace},
		{"NamespaceRace", testUserNamespaceRace},
		{"Update", testUserUpdate},
		{"ConcurrentUpdatesAreAtomic", testUserConcurrentUpdatesAreAtomic},
		{"ListInCreationOrder", testUserListInCreationOrder},
		{"CancelledContext", testUserCancelledContext},
	})
}

// runKeyPairs runs the auth.Store key pair scenarios.
func runKeyPairs(t *testing.T, newStore NewStore) {
	runScenarios(t, newStore, []scenario{
		{"CreateAndFind", testKeyPairCreateAndFind},
		{"CreateErrors", testKeyPairCreateErrors},
		{"Rotate", testKeyPairRotate},
		{"ConcurrentRotationsOneWins", testKeyPairConcurrentRotationsOneWins},
		{"ReissueWithinInterval", testKeyPairReissueWithinInterval},
		{"ReissueRefused", testKeyPairReissueRefused},
		{"ReissueConcurrent", testKeyPairConcurrentReissues},
		{"ReissueRacesFamilyRevocation", testKeyPairReissueRacesFamilyRevocation},
		{"Revoke", testKeyPairRevoke},
		{"DeleteExpired", testKeyPairDeleteExpired},
	})
}

// runDevices runs the auth.Store device scenarios.
func runDevices(t *testing.T, newStore NewStore) {
	runScenarios(t, newStore, []scenario{
		{"UpsertAndFind", testDeviceUpsertAndFind},
		{"ListInCreationOrder", testDeviceListInCreationOrder},
		{"Revoke", testDeviceRevoke},
		{"SignedIn", testDeviceSignedIn},
		{"End", testDeviceEnd},
		{"Touch", testDeviceTouch},
	})
}
