/** The platform version this server reports (software_groups exists from 3.7.0). */
export const PLATFORM_VERSION = '3.7.0';
